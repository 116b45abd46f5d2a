package pipeline

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in      string
		want    Selector
		wantErr string
	}{
		{in: "add-*", want: Selector{Glob: "add-*"}},
		{in: "status=in-progress", want: Selector{Status: "in-progress"}},
		{in: "add-*,status=complete", want: Selector{Glob: "add-*", Status: "complete"}},
		{in: "status=done", wantErr: `unknown status "done"`},
		{in: "a*,b*", wantErr: "two globs"},
		{in: "add-*,", wantErr: "an empty term"},
		{in: "[", wantErr: "bad glob"},
	}
	for _, tt := range tests {
		got, err := ParseSelector(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSelector(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSelector(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseAfter(t *testing.T) {
	d, err := ParseAfter("b:a")
	if err != nil || d.Change != "b" || d.On != "a" {
		t.Fatalf("ParseAfter(b:a) = %+v, %v", d, err)
	}
	for _, bad := range []string{"b", "b:", ":a", "a:a", "a:b:c"} {
		if _, err := ParseAfter(bad); err == nil {
			t.Errorf("ParseAfter(%q) accepted", bad)
		}
	}
}

func TestArrange(t *testing.T) {
	after := func(c, d string) Dep { return Dep{Change: c, On: d, From: "--after"} }
	tests := []struct {
		name        string
		members     []string
		deps        []Dep
		independent []string
		stacks      [][]string
		cycles      [][]string
		blocked     []string
		notes       int
	}{
		{name: "independent", members: []string{"a", "b", "c"},
			independent: []string{"a", "b", "c"}},
		{name: "one stack, order by dependency", members: []string{"b", "a", "c"}, deps: []Dep{after("b", "a")},
			independent: []string{"c"}, stacks: [][]string{{"a", "b"}}},
		{name: "diamond is one linear stack", members: []string{"d", "c", "b", "a"},
			deps:   []Dep{after("b", "a"), after("c", "a"), after("d", "b"), after("d", "c")},
			stacks: [][]string{{"a", "c", "b", "d"}}},
		{name: "cycle blocks its members and dependants", members: []string{"a", "b", "c", "d"},
			deps:        []Dep{after("a", "b"), after("b", "a"), after("c", "a")},
			independent: []string{"d"}, cycles: [][]string{{"a", "b"}}, blocked: []string{"a", "b", "c"}},
		{name: "dependency outside the set is a note", members: []string{"a", "b"}, deps: []Dep{after("a", "z"), after("y", "a")},
			independent: []string{"a", "b"}, notes: 2},
		{name: "duplicate dependency counted once", members: []string{"a", "b"}, deps: []Dep{after("b", "a"), {Change: "b", On: "a", From: "proposal.md"}},
			stacks: [][]string{{"a", "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Arrange(tt.members, tt.deps)
			if !reflect.DeepEqual(l.Independent, tt.independent) {
				t.Errorf("independent = %v, want %v", l.Independent, tt.independent)
			}
			if !reflect.DeepEqual(l.Stacks, tt.stacks) {
				t.Errorf("stacks = %v, want %v", l.Stacks, tt.stacks)
			}
			if !reflect.DeepEqual(l.Cycles, tt.cycles) {
				t.Errorf("cycles = %v, want %v", l.Cycles, tt.cycles)
			}
			var blocked []string
			for _, b := range l.Blocked {
				blocked = append(blocked, b.Change)
			}
			if !reflect.DeepEqual(blocked, tt.blocked) {
				t.Errorf("blocked = %v, want %v", blocked, tt.blocked)
			}
			if len(l.Notes) != tt.notes {
				t.Errorf("notes = %q, want %d", l.Notes, tt.notes)
			}
			if (len(tt.cycles) > 0) != (l.CycleError() != nil) {
				t.Errorf("CycleError() = %v with cycles %v", l.CycleError(), l.Cycles)
			}
		})
	}
	if err := Arrange([]string{"a", "b"}, []Dep{after("a", "b"), after("b", "a")}).CycleError(); err == nil || !strings.Contains(err.Error(), "a → b → a") {
		t.Errorf("cycle error %v does not name a → b → a", err)
	}
}

func TestDependsOnLine(t *testing.T) {
	for line, want := range map[string]string{
		"Depends on: add-a":              "add-a",
		"**Depends on:** `add-a`, add-b": "`add-a`, add-b",
		"- depends-on: add-a":            "add-a",
		"Nothing depends on this":        "",
	} {
		m := dependsOn.FindStringSubmatch(line)
		got := ""
		if m != nil {
			got = m[1]
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", line, got, want)
		}
	}
}

// A workspace path read from the pipeline's record is removed only
// under the workspaces folder: a record naming another folder (edited,
// or from another configuration) never gets it deleted.
func TestRemoveWorkspaceDirStaysUnder(t *testing.T) {
	root := t.TempDir()
	wsDir := filepath.Join(root, "ws")
	inside := filepath.Join(wsDir, "openspec-pipe-1-a")
	outside := filepath.Join(root, "precious")
	for _, d := range []string{inside, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeWorkspaceDir(wsDir, outside); err == nil {
		t.Fatalf("removed %s outside %s", outside, wsDir)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("%s is gone: %v", outside, err)
	}
	for _, p := range []string{wsDir, filepath.Join(wsDir, ".."), wsDir + "-other/x"} {
		if err := removeWorkspaceDir(wsDir, p); err == nil {
			t.Errorf("removeWorkspaceDir(%s) was not refused", p)
		}
	}
	if err := removeWorkspaceDir(wsDir, inside); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(inside); !os.IsNotExist(err) {
		t.Fatalf("%s was not removed: %v", inside, err)
	}
}

// When `jj workspace list` fails, the pipeline says so (with what to do)
// instead of taking it for "no workspaces": a landed member's release
// reports the workspace it left, and a half-made member workspace is not
// removed on a guess (jj may still record it).
func TestPipelineWorkspaceListFails(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	ctx := t.Context()
	bin, _, err := jjx.Find(ctx)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir() // not a jj repository: every jj call on it fails
	wsDir := filepath.Join(root, "ws")
	run := &PipelineRun{RunID: "r1", Request: apply.Request{WorkspacesDir: wsDir}}
	pr := &pipelineRunner{env: &apply.Env{Repo: &jjx.Repo{Root: root, Bin: bin}, Dir: filepath.Join(root, "ledger"), Out: io.Discard},
		run: run, out: &lockedWriter{w: io.Discard}}
	m := &Member{Change: "add-a", Dir: filepath.Join(root, "ledger", "add-a"),
		Workspace: "openspec-pipe-r1-add-a", Path: filepath.Join(wsDir, "openspec-pipe-r1-add-a")}
	if err := os.MkdirAll(m.Path, 0o755); err != nil {
		t.Fatal(err)
	}

	err = pr.release(ctx, m)
	if err == nil || !strings.Contains(err.Error(), "list the workspaces") || !strings.Contains(err.Error(), "jj workspace forget openspec-pipe-r1-add-a") {
		t.Errorf("release with `jj workspace list` failing: %v, want an error naming the listing and how to forget the workspace", err)
	}
	err = pr.workspace(ctx, m, nil)
	if err == nil || !strings.Contains(err.Error(), "list the workspaces") {
		t.Errorf("workspace() of a half-made member with `jj workspace list` failing: %v, want an error naming the listing", err)
	}
	if _, err := os.Stat(m.Path); err != nil {
		t.Errorf("the half-made workspace folder was removed although jj's workspaces could not be read: %v", err)
	}
}

// A member finds the OpenSpec project in its workspace where the run
// recorded it (a subfolder too); a run recorded before the project's
// folder was (or naming one outside the workspace) looks for openspec/
// from the workspace root up, as it did.
func TestPipelineProjectIn(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "openspec"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		project string
		want    string
	}{
		{"app", filepath.Join(ws, "app")},
		{"a/b", filepath.Join(ws, "a", "b")},
		{".", ws},
		{"", ws},     // recorded before Project: found from the workspace
		{"../x", ws}, // outside the workspace: not taken
		{"/etc", ws}, // absolute: not taken
	}
	for _, tt := range tests {
		r := (&PipelineRun{Project: tt.project}).projectIn(ws)
		if r.Dir != tt.want || r.Bound != ws {
			t.Errorf("Project %q: projectIn = {Dir %s, Bound %s}, want {Dir %s, Bound %s}", tt.project, r.Dir, r.Bound, tt.want, ws)
		}
	}
}

// A resume's settings are recorded in the pipeline's record (a later
// resume reads them back); a setting not given keeps the recorded one,
// --verify ends a --no-verify start, and a malformed timeout is refused
// (exit 2) with nothing recorded.
func TestResumePipelineRecordsSettings(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	env := &apply.Env{Dir: dir, Out: io.Discard}
	start := func() *PipelineRun {
		run := &PipelineRun{RunID: "r1", MaxParallel: 2, Request: apply.Request{Worker: "w1", Timeout: "5m", NoVerify: true, Reviewer: "r1"}}
		if err := writePipeline(dir, run); err != nil {
			t.Fatal(err)
		}
		return run
	}
	yes := true
	if _, err := resumePipeline(ctx, env, start(), PipelineSettings{Worker: "w2", Timeout: "7m", Verify: []string{"make test"}, NoPush: &yes, MaxParallel: 3}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ReadPipeline(dir)
	if err != nil || !ok {
		t.Fatalf("ReadPipeline: %v, %v", ok, err)
	}
	want := apply.Request{Worker: "w2", Timeout: "7m", Verify: []string{"make test"}, Reviewer: "r1", NoPush: true}
	if !reflect.DeepEqual(got.Request, want) || got.MaxParallel != 3 {
		t.Errorf("recorded request %+v, max-parallel %d; want %+v, 3", got.Request, got.MaxParallel, want)
	}

	_, err = resumePipeline(ctx, env, start(), PipelineSettings{Worker: "w3", Timeout: "soon"})
	if exitcode.Of(err) != exitcode.Usage {
		t.Errorf("timeout soon: %v (exit %d), want exit %d", err, exitcode.Of(err), exitcode.Usage)
	}
	if got, _, _ := ReadPipeline(dir); got.Request.Worker != "w1" {
		t.Errorf("a refused resume recorded worker %q, want w1 kept", got.Request.Worker)
	}
}

// TestFilterStopsOnInterrupt: a candidate Filter could not judge (here,
// Ctrl-C before it) is an error, never a quiet exclusion that lets the
// pipeline go on without it.
func TestFilterStopsOnInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	sup, err := Filter(ctx, &apply.Env{}, []string{"add-a"}, apply.Request{})
	if exitcode.Of(err) != exitcode.Interrupted {
		t.Fatalf("Filter after Ctrl-C: %v (exit %d), want exit %d", err, exitcode.Of(err), exitcode.Interrupted)
	}
	if len(sup.Excluded) != 0 || len(sup.Members) != 0 {
		t.Errorf("Filter judged candidates it never checked: %+v", sup)
	}
}

// The apply call's decisions are the workflow's: a preview of several
// changes is refused before anything is read, and a resumed pipeline
// refuses --no-verify, --distribution and a --max-parallel below 1 while
// it takes the other flags given.
func TestApplyCallDecisions(t *testing.T) {
	_, err := Apply(t.Context(), &apply.Env{Dir: t.TempDir()}, Call{Names: []string{"a", "b"}, DryRun: true})
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "--dry-run and --from-preview take one change") {
		t.Errorf("apply --dry-run a b: %v, want exit 2 naming --dry-run", err)
	}
	no := true
	for _, tt := range []struct {
		call Call
		want string // "" accepted
	}{
		{Call{Given: apply.ResumeFlags{NoVerify: true}}, "a resumed pipeline keeps its verify gate"},
		{Call{Given: apply.ResumeFlags{Distribution: "single"}}, "keeps the distribution"},
		{Call{MaxParallel: 0, MaxParallelSet: true}, "give at least 1"},
		{Call{MaxParallel: 3, Given: apply.ResumeFlags{Worker: "w", NoPush: &no}}, ""},
	} {
		set, err := resumeSettings(tt.call)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("resumeSettings(%+v): %v", tt.call, err)
		case tt.want == "" && (set.Worker != "w" || set.NoPush != &no || set.MaxParallel != 0):
			t.Errorf("resumeSettings(%+v) = %+v: want the worker and --no-push given, max-parallel not given", tt.call, set)
		case tt.want != "" && (exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("resumeSettings(%+v): %v, want exit 2 saying %q", tt.call, err, tt.want)
		}
	}
}

// A pipeline record whose run id or workspace name is not one folder
// name (a damaged or edited pipeline.toml) never gets a folder outside
// the workspaces folder removed: the half-made workspace's remake and a
// landed member's release refuse it.
func TestMemberWorkspaceNameStaysUnder(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	ctx := t.Context()
	root := filepath.Join(t.TempDir(), "repo")
	if out, err := xec.Output(ctx, xec.Cmd{Name: "jj", Args: []string{"git", "init", "--no-colocate", root}}); err != nil {
		t.Fatalf("jj git init: %v\n%s", err, out)
	}
	repo, err := jjx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	wsDir := filepath.Join(root, "ws")
	victim := filepath.Join(root, "victim-add-a")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	run := &PipelineRun{RunID: "x/../../victim", Request: apply.Request{WorkspacesDir: wsDir}}
	pr := &pipelineRunner{env: &apply.Env{Repo: repo, Dir: filepath.Join(root, "ledger"), Out: io.Discard},
		run: run, out: &lockedWriter{w: io.Discard}}
	m := &Member{Change: "add-a", Dir: filepath.Join(root, "ledger", "add-a"), Path: filepath.Join(wsDir, "half-made")}
	if err := pr.workspace(ctx, m, nil); err == nil {
		t.Error("workspace() of run id \"x/../../victim\": nil error, want a refusal")
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("a folder outside the workspaces folder was removed: %v", err)
	}
	m.Workspace = "../victim-add-a"
	if err := pr.release(ctx, m); err == nil {
		t.Error("release of workspace \"../victim-add-a\": nil error, want a refusal")
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("a folder outside the workspaces folder was removed: %v", err)
	}
}
