package engine

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestReportStatus(t *testing.T) {
	tests := []struct {
		name   string
		report string
		want   string
		ok     bool
	}{
		{"done", "Status: DONE\n", StatusDone, true},
		{"markdown", "- **Status:** DONE_WITH_CONCERNS\n", StatusConcerns, true},
		{"spaces", "status: done with concerns", StatusConcerns, true},
		{"blocked", "# Report\nStatus: BLOCKED\nreason", StatusBlocked, true},
		{"needs context", "Status: NEEDS_CONTEXT", StatusNeedsContext, true},
		{"last wins (a fixer appended)", "Status: BLOCKED\n...\nStatus: DONE\n", StatusDone, true},
		{"no status", "I did things.\n", "", false},
		{"status word in prose", "The status of DONE things\n", "", false},
		{"unknown status", "Status: MAYBE\n", "", false},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".md")
			if err := os.WriteFile(p, []byte(tt.report), 0o644); err != nil {
				t.Fatal(err)
			}
			got, ok := ReportStatus(p)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ReportStatus = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
	if _, ok := ReportStatus(filepath.Join(dir, "missing.md")); ok {
		t.Error("a missing report has a status")
	}
}

func TestReadFindings(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    []Finding
		wantErr string
	}{
		{"array", `[{"severity":"important","message":"m","file":"a.go","line":3}]`,
			[]Finding{{Severity: "important", Message: "m", File: "a.go", Line: 3}}, ""},
		{"object", `{"findings":[{"severity":"critical","message":"x","task":2}]}`,
			[]Finding{{Severity: "critical", Message: "x", Task: 2}}, ""},
		{"json lines", "{\"severity\":\"suggestion\",\"message\":\"a\"}\n\n{\"severity\":\"cannot-verify\",\"message\":\"b\"}\n",
			[]Finding{{Severity: "suggestion", Message: "a"}, {Severity: "cannot-verify", Message: "b"}}, ""},
		{"empty file", "  \n", nil, ""},
		{"empty array", "[]", []Finding{}, ""},
		{"bad severity", `[{"severity":"major","message":"m"}]`, nil, `severity "major" is not critical, important, suggestion or cannot-verify`},
		{"not json", "looks fine to me", nil, "write a JSON array"},
		{"bad line", "{\"severity\":\"critical\"}\n{oops\n", nil, "line 2"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
			if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFindings(p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if fs, err := ReadFindings(filepath.Join(dir, "none.json")); err != nil || fs != nil {
		t.Errorf("missing file: %v, %v", fs, err)
	}
}

func TestCountAndBlocking(t *testing.T) {
	fs := []Finding{{Severity: SeverityCritical}, {Severity: SeverityImportant}, {Severity: SeverityImportant}, {Severity: SeveritySuggestion}, {Severity: SeverityCannotCheck}}
	c, i, o := Count(fs)
	if c != 1 || i != 2 || o != 2 {
		t.Errorf("Count = %d, %d, %d", c, i, o)
	}
	var blocking int
	for _, f := range fs {
		if f.Blocking() {
			blocking++
		}
	}
	if blocking != 3 {
		t.Errorf("%d blocking findings, want 3", blocking)
	}
}

func TestOwners(t *testing.T) {
	ts := []*TaskState{{Task: Task{Num: 1}, Files: []string{"a.go"}}, {Task: Task{Num: 2}, Files: []string{"b.go", "a.go"}}}
	tests := []struct {
		name string
		f    Finding
		want []int
	}{
		{"named task", Finding{Task: 2, File: "a.go"}, []int{2}},
		{"by file", Finding{File: "b.go"}, []int{2}},
		{"shared file", Finding{File: "a.go"}, []int{1, 2}},
		{"unknown file", Finding{File: "z.go"}, []int{1, 2}},
		{"task outside the batch", Finding{Task: 7, File: "a.go"}, []int{1, 2}},
	}
	for _, tt := range tests {
		if got := owners(tt.f, ts); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: owners = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzParseFindings(f *testing.F) {
	for _, s := range []string{
		`[{"severity":"important","message":"m","file":"a.go","line":3}]`,
		`{"findings":[{"severity":"critical","message":"x","task":2}]}`,
		"{\"severity\":\"suggestion\",\"message\":\"a\"}\n{\"severity\":\"cannot-verify\"}",
		"", "[]", "nope", "{", `{"findings": null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := ParseFindings(data)
		if err != nil {
			if fs != nil {
				t.Fatalf("findings %v returned with error %v", fs, err)
			}
			return
		}
		for _, x := range fs {
			switch x.Severity {
			case SeverityCritical, SeverityImportant, SeveritySuggestion, SeverityCannotCheck:
			default:
				t.Fatalf("accepted severity %q", x.Severity)
			}
		}
		c, i, o := Count(fs)
		if c+i+o != len(fs) {
			t.Fatalf("Count %d+%d+%d != %d", c, i, o, len(fs))
		}
	})
}

// TestReadReviewConfidence: the object form carries the reviewer's
// confidence beside its findings; the other forms carry none; a score
// outside 0-100, or not a number, is an error (never read as 0); a
// fraction counts down.
func TestReadReviewConfidence(t *testing.T) {
	tests := []struct {
		name, body string
		want       int // -1: none
		findings   int
		wantErr    bool
	}{
		{"object", `{"confidence": 40, "findings": [{"severity": "suggestion", "message": "m"}]}`, 40, 1, false},
		{"object without", `{"findings": []}`, -1, 0, false},
		{"array", `[{"severity": "critical", "message": "m"}]`, -1, 1, false},
		{"zero", `{"confidence": 0, "findings": []}`, 0, 0, false},
		{"too high", `{"confidence": 101, "findings": []}`, -1, 0, true},
		{"negative", `{"confidence": -1, "findings": []}`, -1, 0, true},
		{"a fraction", `{"confidence": 85.5, "findings": []}`, 85, 0, false},
		{"just under", `{"confidence": 79.99, "findings": []}`, 79, 0, false},
		{"null", `{"confidence": null, "findings": []}`, -1, 0, false},
		{"a string", `{"confidence": "10", "findings": []}`, -1, 0, true},
		{"out of range of a float", `{"confidence": 1e400, "findings": []}`, -1, 0, true},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "findings.json")
		if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		fs, conf, err := ReadReview(path)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err %v, want error %v", tt.name, err, tt.wantErr)
			continue
		}
		got := -1
		if conf != nil {
			got = *conf
		}
		if !tt.wantErr && (got != tt.want || len(fs) != tt.findings) {
			t.Errorf("%s: confidence %d, %d findings; want %d, %d", tt.name, got, len(fs), tt.want, tt.findings)
		}
	}
}

// TestWorkerFilesNotFollowed: a worker's report or a reviewer's findings
// that is a symbolic link (here to a clean review and a DONE report) is
// never followed: the review is an error, never clean, and the report
// names no status.
func TestWorkerFilesNotFollowed(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.json")
	done := filepath.Join(dir, "done.md")
	if err := os.WriteFile(clean, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(done, []byte("Status: DONE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	findings, report := filepath.Join(dir, "findings.json"), filepath.Join(dir, "report.md")
	if err := os.Symlink(clean, findings); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(done, report); err != nil {
		t.Fatal(err)
	}
	if fs, _, err := ReadReview(findings); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ReadReview(symlink) = %v, %v; want an error naming the symbolic link", fs, err)
	}
	if s, ok := ReportStatus(report); ok {
		t.Errorf("ReportStatus(symlink) = %q, true; want no status", s)
	}
}

// TestOutcome: the exit code wins over the report, and a worker that
// exited 0 is done only when a regular report file names its status.
func TestOutcome(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeTestFile(t, dir, name, text) }
	done := write("done.md", "Status: DONE\n")
	blocked := write("blocked.md", "Status: BLOCKED\n")
	prose := write("prose.md", "I did task 1.1.\n")
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(done, link); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder.md")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		res    Result
		report string
		want   string
		reason string
	}{
		{"done", Result{}, done, StatusDone, ""},
		{"blocked", Result{}, blocked, StatusBlocked, ""},
		{"exit 0, no report", Result{}, filepath.Join(dir, "missing.md"), StatusCrashed, "was not written"},
		{"exit 0, report without a status", Result{}, prose, StatusCrashed, "has no line \"Status: DONE\""},
		{"exit 0, report is a symbolic link", Result{}, link, StatusCrashed, "a symbolic link"},
		{"exit 0, report is a directory", Result{}, folder, StatusCrashed, "a directory"},
		{"DONE then exit 1", Result{ExitCode: 1}, done, StatusCrashed, "worker exited 1 although its report says done (the exit code wins)"},
		{"exit 3, no report", Result{ExitCode: 3}, prose, StatusCrashed, "worker exited 3 without a status in its report"},
		{"timed out", Result{ExitCode: -1, TimedOut: true}, done, StatusCrashed, "timed out"},
		{"a remote run that pushed nothing", Result{ExitCode: 1, Remote: true, Err: errors.New("run X concluded failure and pushed no result")}, prose, StatusCrashed, "worker exited 1 (run X concluded failure and pushed no result) without a status"},
		{"a local command's error is its exit", Result{ExitCode: 1, Err: errors.New("exit status 1")}, prose, StatusCrashed, "worker exited 1 without a status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := Outcome(tt.res, tt.report, "worker.log")
			if got != tt.want || !strings.Contains(why, tt.reason) || (tt.reason == "") != (why == "") {
				t.Errorf("Outcome = %q, %q; want %q with a reason containing %q", got, why, tt.want, tt.reason)
			}
		})
	}
}

// FuzzParseReport: any report text parses without panicking; a status
// found is one of the four; a status line appended always wins (fixers
// append to the implementer's report); text without the word "status"
// names none.
func FuzzParseReport(f *testing.F) {
	for _, s := range []string{
		"Status: DONE\n", "- **Status:** DONE_WITH_CONCERNS\n", "status: done with concerns",
		"# Report\nStatus: BLOCKED\nreason", "Status: NEEDS_CONTEXT", "Status: BLOCKED\n...\nStatus: DONE\n",
		"I did things.\n", "The status of DONE things\n", "Status: MAYBE\n", "", "\x00Status:\r\nDONE",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ok := ParseReport(data)
		switch {
		case !ok && s != "":
			t.Fatalf("no status, yet %q", s)
		case ok:
			switch s {
			case StatusDone, StatusConcerns, StatusBlocked, StatusNeedsContext:
			default:
				t.Fatalf("status %q is not one of the four", s)
			}
			if !strings.Contains(strings.ToLower(string(data)), "status") {
				t.Fatalf("status %q found in text without the word status", s)
			}
		}
		if s, ok := ParseReport(append(slices.Clip(data), "\nStatus: BLOCKED\n"...)); !ok || s != StatusBlocked {
			t.Fatalf("appended BLOCKED read as %q, %v", s, ok)
		}
	})
}
