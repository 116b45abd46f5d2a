package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

type header struct {
	Plan  string `toml:"plan"`
	Start string `toml:"start"`
}

type event struct {
	Seq  int    `toml:"seq"`
	Kind string `toml:"kind"`
	Note string `toml:"note"`
}

func TestMain(m *testing.M) {
	switch os.Getenv("LEDGER_TEST_HELPER") {
	case "hold":
		holdLock(os.Getenv("LEDGER_TEST_DIR"))
	case "write":
		writeForever(os.Getenv("LEDGER_TEST_DIR"))
	}
	os.Exit(m.Run())
}

// holdLock takes the lock, says so on stdout, and holds it until killed.
func holdLock(dir string) {
	if _, err := Acquire(dir); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// writeForever appends big events as fast as it can until killed.
func writeForever(dir string) {
	path := filepath.Join(dir, "run.toml")
	d := New[header, event](header{Plan: "plan.md", Start: "op"})
	pad := strings.Repeat("x", 4096)
	for i := 0; ; i++ {
		if err := d.Append(path, event{Seq: i, Kind: "step", Note: pad}); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		if i == 3 {
			fmt.Println("writing")
		}
	}
}

func helper(t *testing.T, mode, dir string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LEDGER_TEST_HELPER="+mode, "LEDGER_TEST_DIR="+dir)
	out := &strings.Builder{}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 256)
	n, _ := pr.Read(buf) // first line: the helper is ready
	out.Write(buf[:n])
	pr.Close()
	return cmd, out
}

func TestRoundTripAndAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "run.toml")
	d := New[header, event](header{Plan: "p.md", Start: "abc"})
	if err := d.Append(path, event{Seq: 1, Kind: "start"}); err != nil {
		t.Fatal(err)
	}
	if err := d.Append(path, event{Seq: 2, Kind: "wave", Note: "line1\nline2 \"quoted\""}); err != nil {
		t.Fatal(err)
	}
	got, err := Read[header, event](path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != SchemaVersion || got.Header.Plan != "p.md" || len(got.Events) != 2 || got.Events[1].Note != "line1\nline2 \"quoted\"" {
		t.Fatalf("round trip: %+v", got)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read[header, event](filepath.Join(dir, "none.toml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: got %v, want fs.ErrNotExist", err)
	}
	newer := filepath.Join(dir, "newer.toml")
	os.WriteFile(newer, []byte("schema = 99\n"), 0o644)
	if _, err := Read[header, event](newer); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("newer schema: got %v", err)
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("schema = [\n"), 0o644)
	if _, err := Read[header, event](bad); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged file: got %v", err)
	}
}

func TestSecondHolderFailsFast(t *testing.T) {
	dir := t.TempDir()
	holder, out := helper(t, "hold", dir)
	if !strings.Contains(out.String(), "locked") {
		t.Fatalf("helper did not lock: %q", out)
	}
	start := time.Now()
	_, err := Acquire(dir)
	if err == nil {
		t.Fatal("second Acquire succeeded while another process holds the lock")
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("Acquire waited %v; it must fail at once", time.Since(start))
	}
	if le := (*LockedError)(nil); !errors.As(err, &le) || le.Holder.PID != holder.Process.Pid {
		t.Errorf("error %#v is not a *LockedError naming pid %d", err, holder.Process.Pid)
	}
	if want := "locked by pid " + strconv.Itoa(holder.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the holder (%q)", err, want)
	}

	// When the holder dies (even by SIGKILL) the lock is free again.
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after the holder died: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestKillMidWrite kills a writer at random points and checks that the
// ledger is always whole: it parses, and its events are 0..n-1.
func TestKillMidWrite(t *testing.T) {
	for round := range 5 {
		dir := t.TempDir()
		w, out := helper(t, "write", dir)
		if !strings.Contains(out.String(), "writing") {
			t.Fatalf("writer did not start: %q", out)
		}
		time.Sleep(time.Duration(5+round*7) * time.Millisecond)
		w.Process.Signal(syscall.SIGKILL)
		w.Wait()
		d, err := Read[header, event](filepath.Join(dir, "run.toml"))
		if err != nil {
			t.Fatalf("round %d: ledger unreadable after kill: %v", round, err)
		}
		if len(d.Events) < 4 {
			t.Fatalf("round %d: %d events, want at least 4", round, len(d.Events))
		}
		for i, e := range d.Events {
			if e.Seq != i || len(e.Note) != 4096 {
				t.Fatalf("round %d: event %d is %d (note %d bytes): ledger torn", round, i, e.Seq, len(e.Note))
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != "run.toml" && !strings.HasPrefix(e.Name(), ".run.toml") {
				t.Errorf("round %d: unexpected file %s", round, e.Name())
			}
		}
	}
}

// TestLockedNamesTheLiveHolder covers the instant after a holder took the
// lock and before it wrote its holder file (which may still name an
// earlier, dead holder): the second Acquire waits for the file a moment
// and names the live holder.
func TestLockedNamesTheLiveHolder(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, HolderFile), Holder{PID: dead.Process.Pid, Command: "killed earlier"}); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(filepath.Join(dir, LockFile))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	defer fl.Unlock()
	host, _ := os.Hostname()
	go func() {
		time.Sleep(200 * time.Millisecond)
		WriteFile(filepath.Join(dir, HolderFile), Holder{PID: os.Getpid(), Host: host, Command: "the live one"})
	}()
	_, err := Acquire(dir)
	if want := fmt.Sprintf("locked by pid %d (the live one", os.Getpid()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want it to contain %q", err, want)
	}
	if le := (*LockedError)(nil); !errors.As(err, &le) || le.Holder.PID != os.Getpid() {
		t.Errorf("error %#v is not a *LockedError naming pid %d", err, os.Getpid())
	}
}

// Holding sees the live holder without taking the lock; a holder killed
// (its holder file left behind) holds nothing.
func TestHolding(t *testing.T) {
	dir := t.TempDir()
	if Holding(dir) {
		t.Fatal("Holding: held, with no holder file")
	}
	holder, out := helper(t, "hold", dir)
	if !strings.Contains(out.String(), "locked") {
		t.Fatalf("helper did not lock: %q", out)
	}
	if !Holding(dir) {
		t.Errorf("Holding = false while pid %d holds the lock", holder.Process.Pid)
	}
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	if _, err := os.Stat(filepath.Join(dir, HolderFile)); err != nil {
		t.Fatalf("the killed holder's file: %v (want it left behind)", err)
	}
	if Holding(dir) {
		t.Error("Holding = true after the holder was killed")
	}
}

func TestReadOptional(t *testing.T) {
	type rec struct {
		Name string `toml:"name"`
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.toml")
	if v, ok, err := ReadOptional[rec](path); v != nil || ok || err != nil {
		t.Fatalf("missing: %v %v %v", v, ok, err)
	}
	if err := WriteFile(path, rec{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := ReadOptional[rec](path); !ok || err != nil || v.Name != "x" {
		t.Fatalf("present: %v %v %v", v, ok, err)
	}
	if err := os.WriteFile(path, []byte("name = "), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := ReadOptional[rec](path); ok || v != nil || err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged: %v %v %v", v, ok, err)
	}
}
