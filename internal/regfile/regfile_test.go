package regfile_test

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/regfile"
)

// readSoon runs Read with a deadline, so a reader that blocks fails the
// test instead of hanging it.
func readSoon(t *testing.T, path string) ([]byte, error) {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := regfile.Read(path)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Read(%s) still blocked after 10s", path)
		return nil, nil
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.md")
	if err := os.WriteFile(file, []byte("content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An empty file and one larger than any first read buffer.
	empty, big := filepath.Join(dir, "empty.md"), filepath.Join(dir, "big.md")
	bigText := strings.Repeat("0123456789abcdef", 20000) + "end\n"
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte(bigText), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.md")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sub := filepath.Join(dir, "dir.md")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	fileLink := filepath.Join(dir, "filelink.md")
	if err := os.Symlink(file, fileLink); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path     string
		want     string // content, when it reads
		kind     string // "", or the word the error must use
		notExist bool
	}{
		{path: file, want: "content\n"},
		{path: fileLink, want: "content\n"},
		{path: empty, want: ""},
		{path: big, want: bigText},
		{path: fifo, kind: "named pipe (FIFO)"},
		{path: link, kind: "named pipe (FIFO)"},
		{path: sock, kind: "socket"},
		{path: sub, kind: "directory"},
		{path: "/dev/null", kind: "device"},
		{path: filepath.Join(dir, "missing.md"), notExist: true},
	}
	for _, tt := range tests {
		b, err := readSoon(t, tt.path)
		switch {
		case tt.notExist:
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("Read(%s) = %v, want a not-exist error naming it", tt.path, err)
			}
		case tt.kind != "":
			if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.kind) {
				t.Errorf("Read(%s) = %v, want ErrNotRegular naming it as a %s", tt.path, err, tt.kind)
			}
		case err != nil || string(b) != tt.want:
			t.Errorf("Read(%s) = %q, %v; want %q", tt.path, b, err, tt.want)
		}
	}
}

// TestReadNoFollow reads a regular file and refuses a symbolic link (to
// a regular file, inside or outside the folder), a FIFO and a directory.
func TestReadNoFollow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "report.md")
	if err := os.WriteFile(file, []byte("Status: DONE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := regfile.ReadNoFollow(file); err != nil || string(b) != "Status: DONE\n" {
		t.Fatalf("ReadNoFollow(regular) = %q, %v", b, err)
	}
	link := filepath.Join(dir, "findings.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, err := regfile.ReadNoFollow(link); !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ReadNoFollow(symlink) err = %v; want ErrNotRegular naming a symbolic link", err)
	}
	fifo := filepath.Join(dir, "verdicts.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := regfile.ReadNoFollow(fifo); !errors.Is(err, regfile.ErrNotRegular) {
		t.Errorf("ReadNoFollow(fifo) err = %v; want ErrNotRegular", err)
	}
	if _, err := regfile.ReadNoFollow(dir); !errors.Is(err, regfile.ErrNotRegular) {
		t.Errorf("ReadNoFollow(dir) err = %v; want ErrNotRegular", err)
	}
	if _, err := regfile.ReadNoFollow(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadNoFollow(missing) err = %v; want not exist", err)
	}
}
