package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/ledger/ledgertest"
)

// The ledgers under testdata/ledgers were written by real runs of the
// release before typed events (the kaisen_* and openspec_apply_* e2e
// scripts, kept with -testwork): every kind there decodes into its
// payload type, and re-encoding gives the same bytes, so a ledger
// written now is one the previous release reads, and the other way round.
func TestLedgerRoundTrip(t *testing.T) {
	seen := ledgertest.RoundTrip[Header](t, "testdata/ledgers/*.toml", func(e Event) (string, bool) {
		_, unknown := e.Payload.(Unknown)
		return e.Kind(), !unknown
	})
	for _, p := range payloads {
		if !seen[p.Kind()] {
			t.Errorf("no golden ledger holds a %q event", p.Kind())
		}
	}
}

// What older ledgers keep under another key, or a kind this build does
// not know, decodes into the typed payload (or Unknown) and is stored
// back as it was.
func TestEventCodec(t *testing.T) {
	tests := []struct {
		name, stored string
		want         Payload
	}{
		{"archive name in reason", `kind = "apply-archived"` + "\n" + `reason = "2026-01-02-add-x"`, Archived{Name: "2026-01-02-add-x"}},
		{"bookmark in reason", `kind = "apply-bookmark"` + "\n" + `reason = "feat/x"` + "\n" + `commit = "c1"`, Bookmarked{Bookmark: "feat/x", Commit: "c1"}},
		{"pr url in reason", `kind = "apply-pr"` + "\n" + `status = "created"` + "\n" + `reason = "https://x/pull/3"` + "\n" + `pr = 3`, PROpened{Action: "created", URL: "https://x/pull/3", Number: 3}},
		{"pr number in exit_code (before pr)", `kind = "apply-pr"` + "\n" + `reason = "https://x/pull/4"` + "\n" + `exit_code = 4`, PROpened{URL: "https://x/pull/4", Number: 4}},
		{"ticked task ids in files", `kind = "apply-ticked"` + "\n" + `files = ["1.1", "2.3"]`, Ticked{Tasks: []string{"1.1", "2.3"}}},
		{"reused receipt", `kind = "receipt"` + "\n" + `command = "make"` + "\n" + `reason = "reused"`, ReceiptRecorded{Command: "make", Reused: true}},
		{"receipt run", `kind = "receipt"` + "\n" + `command = "make"` + "\n" + `exit_code = 2`, ReceiptRecorded{Command: "make", ExitCode: 2}},
		{"unknown kind", `kind = "from-the-future"` + "\n" + `reason = "r"` + "\n" + `files = ["a"]`, Unknown{Name: "from-the-future", rec: record{Kind: "from-the-future", Reason: "r", Files: []string{"a"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.toml")
			if err := os.WriteFile(path, []byte("schema = 1\n\n[header]\nrun_id = \"r1\"\nstart_op = \"o1\"\n\n[[event]]\n"+tt.stored+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ledger.Read[Header, Event](path)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Events) != 1 || !reflect.DeepEqual(d.Events[0].Payload, tt.want) {
				t.Fatalf("decoded %+v, want payload %#v", d.Events, tt.want)
			}
			back := eventOf(d.Events[0].record())
			if !reflect.DeepEqual(back, d.Events[0]) {
				t.Errorf("re-encoded and decoded: %#v, want %#v", back, d.Events[0])
			}
		})
	}
}

// Every payload field survives a trip through the stored form, in each
// ledger that stores it.
func TestEventCodecEveryField(t *testing.T) {
	for _, voc := range []struct {
		v          *vocabulary
		payloads   []Payload
		task, wave int
		role       string
	}{{engineVocab(), payloads, 1, 2, "r"}, {runVocab(), runPayloads, 1, 0, "r"}, {authorVocab(), authorPayloads, 0, 0, ""}} {
		for _, p := range voc.payloads {
			checkEveryField(t, voc.v, p, Event{Task: voc.task, Wave: voc.wave, Role: voc.role})
		}
	}
}

func checkEveryField(t *testing.T, voc *vocabulary, p Payload, e Event) {
	t.Helper()
	{
		v := reflect.New(reflect.TypeOf(p)).Elem()
		for i := range v.NumField() {
			f := v.Field(i)
			switch f.Kind() {
			case reflect.String:
				f.SetString("s" + v.Type().Field(i).Name)
			case reflect.Int:
				f.SetInt(int64(i + 1))
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Slice:
				f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			case reflect.Pointer:
				f.Set(reflect.New(f.Type().Elem()))
			}
		}
		e.Payload = v.Interface().(Payload)
		if got := voc.load(voc.store(e)); !reflect.DeepEqual(got, e) {
			t.Errorf("%T in %s: round trip gave %#v, want %#v", p, voc.rec.Name(), got.Payload, e.Payload)
		}
	}
}

// No ledger content panics a reader: whatever decodes folds, renders as
// a log and a breakpoint, and re-encodes to bytes that decode and
// encode to the same bytes again.
func FuzzDecodeEvent(f *testing.F) {
	files, _ := filepath.Glob("testdata/ledgers/*.toml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("schema = 1\n[header]\nrun_id = \"r\"\nstart_op = \"o\"\ntasks = [{num = 1}, {num = 2}]\nwaves = [[1, 2]]\n[[event]]\nkind = \"collected\"\ntask = 1\n[[event]]\nkind = \"dispatched\"\nrole = \"reviewer\"\n"))
	f.Add([]byte("schema = 1\n[header]\nrun_id = \"r\"\nstart_op = \"o\"\n[[event]]\nkind = \"apply-pr\"\nexit_code = 3\n[[event]]\nkind = \"nobody-knows\"\n[event.agent]\ncost_usd = nan\n"))
	f.Add([]byte("schema = 1\n[header]\nrun_id = \"r\"\nstart_op = \"o\"\ntasks = [{num = 7}]\nwaves = [[7]]\n[[event]]\nkind = \"provisioned\"\ntask = 7\n[[event]]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ledger.Decode[Header, Event]("fuzz.toml", data)
		if err != nil {
			return
		}
		st := Fold(d)
		_ = st.Finished()
		if err := BuildLog(d).Text(io.Discard); err != nil {
			t.Fatal(err)
		}
		if err := BuildCoverage(d, "artifacts").Text(io.Discard); err != nil {
			t.Fatal(err)
		}
		once, err := d.Encode()
		if err != nil {
			return // the header may hold what TOML cannot write (a NaN key, …)
		}
		back, err := ledger.Decode[Header, Event]("fuzz.toml", once)
		if err != nil {
			t.Fatalf("re-encoded ledger does not decode: %v\n%s", err, once)
		}
		twice, err := back.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if string(once) != string(twice) {
			t.Fatalf("encoding is not stable:\n%s\nthen\n%s", once, twice)
		}
	})
}

// A header a reader cannot rely on (a ledger emptied or cut short, waves
// naming tasks that are not recorded, a task recorded twice) is refused as
// damaged when it is read: before, status and resume dereferenced the
// missing tasks, and an empty ledger resumed as a complete run of 0 tasks.
func TestDecodeDamagedHeader(t *testing.T) {
	const ok = "schema = 1\n[header]\nrun_id = \"r\"\nstart_op = \"o\"\n"
	for _, tc := range []struct{ name, data, want string }{
		{"empty file", "", "schema 0: not a specstack ledger"},
		{"no schema", "[header]\nrun_id = \"r\"\n", "schema 0: not a specstack ledger"},
		{"no header", "schema = 1\n", "header: no run_id"},
		{"no start op", "schema = 1\n[header]\nrun_id = \"r\"\n", "header: no start_op"},
		{"wave names a task not recorded", ok + "tasks = [{num = 1}, {num = 2}]\nwaves = [[1, 2, 99]]\n", "wave 1 names task 99, which is not recorded"},
		{"task recorded twice", ok + "tasks = [{num = 1}, {num = 1}]\nwaves = [[1]]\n", "task 1 is recorded twice"},
		{"task 0", ok + "tasks = [{num = 0}]\nwaves = [[0]]\n", "a task numbered 0"},
		{"task in two waves", ok + "tasks = [{num = 1}, {num = 2}]\nwaves = [[1], [1, 2]]\n", "task 1 is in wave 1 and wave 2"},
		{"empty wave", ok + "tasks = [{num = 1}]\nwaves = [[1], []]\n", "wave 2 has no task"},
		{"unknown dependency", ok + "tasks = [{num = 1, deps = [5]}]\nwaves = [[1]]\n", "task 1 depends on task 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ledger.Decode[Header, Event]("run.toml", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "run.toml") || !strings.Contains(err.Error(), "move it aside") {
				t.Fatalf("Decode: %v, want an error naming run.toml: %s ... move it aside", err, tc.want)
			}
		})
	}
	if _, err := ledger.Decode[Header, Event]("run.toml", []byte(ok+"tasks = [{num = 1}, {num = 2, deps = [1]}]\nwaves = [[1], [2]]\n")); err != nil {
		t.Fatalf("a sound header: %v", err)
	}
}

// A damaged event is an error naming the file, the event and the line,
// not a panic or a silently empty payload.
func TestDecodeDamagedEvent(t *testing.T) {
	data := []byte("schema = 1\n[header]\nrun_id = \"r\"\n\n[[event]]\nkind = \"collected\"\ntask = \"x\"\n")
	_, err := ledger.Decode[Header, Event]("run.toml", data)
	if err == nil || !strings.Contains(err.Error(), "run.toml: event 1: toml: line 7") || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("Decode of a damaged event: %v", err)
	}
}

// Every payload type declared in the package is in the conversion
// table: one left out would be written by nobody's codec.
func TestEveryPayloadInTable(t *testing.T) {
	inTable := map[string]bool{"Unknown": true}
	for _, p := range slices.Concat(payloads, runPayloads, authorPayloads) {
		inTable[reflect.TypeOf(p).Name()] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "payload" || fn.Recv == nil {
				continue
			}
			found++
			if id, ok := fn.Recv.List[0].Type.(*ast.Ident); !ok || !inTable[id.Name] {
				t.Errorf("%s: payload type %s is not in the payloads table (eventcodec.go)", fset.Position(fn.Pos()), types.ExprString(fn.Recv.List[0].Type))
			}
		}
	}
	if found != len(inTable) {
		t.Errorf("%d payload types declared, %d in the table", found, len(inTable))
	}
}
