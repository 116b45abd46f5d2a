package apply

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/ledger"
)

// The apply-pr event keeps the pull request's number in its own field
// (pr); a ledger written before that kept it in exit_code, and is still
// read.
func TestTailPRNumber(t *testing.T) {
	tests := []struct {
		name, event string
		want        int
	}{
		{name: "pr field", event: "kind = \"apply-pr\"\nstatus = \"created\"\nreason = \"https://github.com/acme/app/pull/7\"\npr = 7\n", want: 7},
		{name: "older ledger, exit_code", event: "kind = \"apply-pr\"\nstatus = \"updated\"\nreason = \"https://github.com/acme/app/pull/12\"\nexit_code = 12\n", want: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.toml")
			doc := "schema = 1\n\n[header]\nrun_id = \"r1\"\nstart_op = \"o1\"\n\n[[event]]\n" + tt.event
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ledger.Read[engine.Header, engine.Event](path)
			if err != nil {
				t.Fatal(err)
			}
			got := TailOf(d).PR
			if got == nil || got.Number != tt.want || !strings.HasSuffix(got.URL, "/pull/"+strconv.Itoa(tt.want)) {
				t.Fatalf("tailOf(%q).PR = %+v, want number %d", tt.event, got, tt.want)
			}
		})
	}
}

// What apply records for a pull request is written as pr, not exit_code.
func TestTailPRRecordedInItsField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.toml")
	d := ledger.New[engine.Header, engine.Event](engine.Header{RunID: "r1", StartOp: "o1"})
	if err := d.Append(path, engine.Event{Payload: engine.PROpened{Action: "created", URL: "https://github.com/acme/app/pull/3", Number: 3}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); !strings.Contains(s, "pr = 3\n") || strings.Contains(s, "exit_code = 3") {
		t.Errorf("the apply-pr event is written as\n%s\nwant pr = 3, not exit_code = 3", s)
	}
	back, err := ledger.Read[engine.Header, engine.Event](path)
	if err != nil {
		t.Fatal(err)
	}
	if pr := TailOf(back).PR; pr == nil || pr.Number != 3 {
		t.Errorf("read back: PR %+v, want number 3", pr)
	}
}
