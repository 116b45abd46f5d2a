package engine_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

// childEnv, when set, makes the test binary a child that provisions one
// git workspace and is killed by the crash point it names (see
// TestBackendContract's kill -9 case).
const childEnv = "SPECSTACK_BACKEND_CHILD"

func TestMain(m *testing.M) {
	if repo := os.Getenv(childEnv); repo != "" {
		b := &engine.GitBackend{Repo: &gitx.Repo{Dir: repo}, Dir: os.Getenv(childEnv + "_DIR")}
		_, err := b.Provision(context.Background(), engine.Workspace{Name: os.Getenv(childEnv + "_NAME"), Base: []string{os.Getenv(childEnv + "_BASE")}, Message: "child"})
		os.Stderr.WriteString("child provision returned (the crash point did not fire): " + errString(err) + "\n")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// workspaces is the part of the Backend contract both backends keep (the
// git backend holds only it: gh-specstack's ticket worktrees).
type workspaces interface {
	Path(name string) string
	Provision(ctx context.Context, ws engine.Workspace) (engine.Workspace, error)
	Collect(ctx context.Context, ws engine.Workspace) (engine.Produced, error)
	DiffRange(ctx context.Context, from, to string) ([]byte, error)
	Release(ctx context.Context, ws engine.Workspace) error
}

var _ workspaces = (*engine.GitBackend)(nil)

// fixture is one backend on a fresh repository whose base commit holds
// a.txt and b.txt (ten lines each).
type fixture struct {
	vcs    string
	w      workspaces
	b      engine.Backend // the whole Backend (jj); nil for git
	dir    string         // the workspaces' parent directory
	root   string         // the target's working copy
	base   string
	onBase func(t *testing.T, path string) bool // the workspace's change sits on base
}

const tenLines = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := xec.Output(t.Context(), xec.Cmd{Name: name, Args: args, Dir: dir})
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

func newFixture(t *testing.T, vcs string) fixture {
	t.Helper()
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	wsDir := filepath.Join(dir, "workspaces")
	switch vcs {
	case "jj":
		run(t, dir, "jj", "git", "init", "--no-colocate", root)
		write(t, root, "a.txt", tenLines)
		write(t, root, "b.txt", tenLines)
		run(t, root, "jj", "describe", "-m", "base")
		run(t, root, "jj", "new")
		repo, err := jjx.Open(t.Context(), root)
		if err != nil {
			t.Fatal(err)
		}
		base := run(t, root, "jj", "log", "--no-graph", "-r", "@-", "-T", "change_id")
		b := engine.NewJJBackend(repo, wsDir, "task-")
		return fixture{vcs: vcs, w: b, b: b, dir: wsDir, root: root, base: base,
			onBase: func(t *testing.T, path string) bool {
				return run(t, path, "jj", "log", "--no-graph", "-r", "@-", "-T", "change_id") == base
			}}
	case "git":
		run(t, dir, "git", "init", "--quiet", "-b", "main", root)
		write(t, root, "a.txt", tenLines)
		write(t, root, "b.txt", tenLines)
		run(t, root, "git", "add", "--all")
		run(t, root, "git", "commit", "--quiet", "-m", "base")
		base := run(t, root, "git", "rev-parse", "HEAD")
		return fixture{vcs: vcs, w: &engine.GitBackend{Repo: &gitx.Repo{Dir: root}, Dir: wsDir}, dir: wsDir, root: root, base: base,
			onBase: func(t *testing.T, path string) bool {
				return run(t, path, "git", "rev-parse", "HEAD") == base
			}}
	}
	t.Fatalf("no backend %q", vcs)
	return fixture{}
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// worker is a scripted worker: it runs sh -c script in the workspace, as
// the engine's jobs do (the script is the test's own, trusted text).
func worker(t *testing.T, ws engine.Workspace, script string) {
	t.Helper()
	if err := xec.Run(t.Context(), xec.Cmd{Name: "sh", Args: []string{"-c", script}, Dir: ws.Path}); err != nil {
		t.Fatalf("worker in %s: %v", ws.Name, err)
	}
}

// TestBackendContract holds both backends to the contract of their
// common part (provision, collect, diff, release, a half-made workspace
// repaired), and the jj backend to the whole Backend, on real jj and real
// git.
func TestBackendContract(t *testing.T) {
	for _, vcs := range []string{"jj", "git"} {
		t.Run(vcs, func(t *testing.T) {
			f := newFixture(t, vcs)
			ctx := t.Context()
			w, b := f.w, f.b
			if b != nil && b.VCS() != vcs {
				t.Fatalf("VCS() = %q", b.VCS())
			}
			provision := func(name string) engine.Workspace {
				t.Helper()
				ws, err := w.Provision(ctx, engine.Workspace{Name: name, Base: []string{f.base}, Message: "Task: " + name})
				if err != nil {
					t.Fatalf("provision %s: %v", name, err)
				}
				if ws.Path != w.Path(name) || !f.onBase(t, ws.Path) {
					t.Fatalf("provision %s: %+v is not at %s on the base", name, ws, w.Path(name))
				}
				return ws
			}
			collect := func(ws engine.Workspace) engine.Produced {
				t.Helper()
				p, err := w.Collect(ctx, ws)
				if err != nil {
					t.Fatalf("collect %s: %v", ws.Name, err)
				}
				return p
			}

			// Provision at the base; a scripted worker edits; collect
			// reads the files and lines from the VCS.
			ws1 := provision("task-1")
			worker(t, ws1, `sed -i 's/^1$/one/' a.txt && printf 'eleven\ntwelve\n' >> a.txt`)
			p1 := collect(ws1)
			if want := []engine.FileLines{{Path: "a.txt", Added: 3, Removed: 1}}; !slices.Equal(p1.Files, want) || p1.Empty() || p1.Tree == "" {
				t.Errorf("collect task-1: %+v; want files %v and a change with a tree", p1, want)
			}
			ws2 := provision("task-2")
			worker(t, ws2, `sed -i 's/^10$/ten/' b.txt && echo new > c.txt`)
			p2 := collect(ws2)
			if want := []engine.FileLines{{Path: "b.txt", Added: 1, Removed: 1}, {Path: "c.txt", Added: 1}}; !slices.Equal(p2.Files, want) {
				t.Errorf("collect task-2: %+v; want files %v", p2.Files, want)
			}
			// A workspace nobody touched holds nothing.
			ws5 := provision("task-5")
			if p := collect(ws5); !p.Empty() || len(p.Files) != 0 {
				t.Errorf("collect of an untouched workspace: %+v", p)
			}

			if d, err := w.DiffRange(ctx, f.base, p1.Change); err != nil || !strings.Contains(string(d), "+twelve\n") || !strings.Contains(string(d), "-1\n") || strings.Contains(string(d), "c.txt") {
				t.Errorf("diff range of task-1: %v\n%s", err, d)
			}
			var ws3, ws4 engine.Workspace
			if b != nil {
				ws3, ws4 = wholeBackend(t, f, ws1, ws2, p1, p2)
			}

			// A provision killed between its steps is repaired by the next
			// provision of that task.
			halfMade(t, f, "task-6")
			half := engine.Workspace{Name: "task-6", Base: []string{f.base}, Message: "Task: task-6"}
			if b != nil {
				checkHalfMade(t, f, ws1, half)
			}
			ws6 := provision("task-6")
			if ws6.Remade == "" {
				t.Error("provision of the half-made task-6 does not say it made it again")
			}
			if b != nil {
				if problem, err := b.Check(ctx, ws6, true); err != nil || problem != "" {
					t.Errorf("check of the repaired task-6 = %q, %v; want it as asked", problem, err)
				}
				if problem, err := b.Check(ctx, ws1, false); err != nil || problem != "" {
					t.Errorf("check of task-1 with a worker's edits = %q, %v; want it as asked", problem, err)
				}
			}
			worker(t, ws6, `echo six > six.txt`)
			if p := collect(ws6); !slices.Equal(p.Files, []engine.FileLines{{Path: "six.txt", Added: 1}}) {
				t.Errorf("collect of the repaired task-6: %+v", p.Files)
			}
			// A provision asked again of a workspace that is as asked
			// adopts it (the worker's files stay).
			if again, err := w.Provision(ctx, half); err != nil || read(t, again.Path, "six.txt") != "six\n" || again.Remade != "" {
				t.Errorf("provision again of a good workspace: %v (remade: %q); its files must stay", err, again.Remade)
			}

			ws7 := provision("task-7")
			if b != nil {
				reset(t, f, ws7)
				// Release leaves no workspace behind.
				if err := b.ReleaseAll(ctx, []engine.Workspace{ws1, ws2}); err != nil {
					t.Errorf("release task-1 and task-2 together: %v", err)
				}
			}
			// Release leaves no workspace, worktree or branch behind,
			// and releasing again succeeds.
			for _, ws := range []engine.Workspace{ws1, ws2, ws3, ws4, ws5, ws6, ws6, ws7} {
				if ws.Name == "" {
					continue // not made: git has no integration to conflict
				}
				if err := w.Release(ctx, ws); err != nil {
					t.Errorf("release %s: %v", ws.Name, err)
				}
				if fileExists(ws.Path) {
					t.Errorf("release %s left %s", ws.Name, ws.Path)
				}
			}
			if b != nil {
				if left, err := b.Workspaces(ctx); err != nil || len(left) != 0 {
					t.Errorf("after release: workspaces %v, %v", left, err)
				}
			}
			switch vcs {
			case "jj":
				if got := run(t, f.root, "jj", "workspace", "list", "-T", `name ++ "\n"`); got != "default" {
					t.Errorf("jj workspaces after release:\n%s", got)
				}
			case "git":
				if got := run(t, f.root, "git", "branch", "--list", "task-*"); got != "" {
					t.Errorf("git branches after release:\n%s", got)
				}
				if got := run(t, f.root, "git", "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
					t.Errorf("git worktrees after release:\n%s", got)
				}
			}
		})
	}
}

// wholeBackend holds the jj backend to the rest of the Backend contract
// (the target, integration, conflicts) with task-1 and task-2 collected;
// it returns the workspaces it made, task-3 and task-4.
func wholeBackend(t *testing.T, f fixture, ws1, ws2 engine.Workspace, p1, p2 engine.Produced) (engine.Workspace, engine.Workspace) {
	t.Helper()
	ctx, b := t.Context(), f.b
	provision := func(name string) engine.Workspace {
		t.Helper()
		ws, err := b.Provision(ctx, engine.Workspace{Name: name, Base: []string{f.base}, Message: "Task: " + name})
		if err != nil {
			t.Fatalf("provision %s: %v", name, err)
		}
		return ws
	}
	collect := func(ws engine.Workspace) engine.Produced {
		t.Helper()
		p, err := b.Collect(ctx, ws)
		if err != nil {
			t.Fatalf("collect %s: %v", ws.Name, err)
		}
		return p
	}
	if got := b.TargetDir(); got != f.root {
		t.Errorf("TargetDir() = %q, want %q", got, f.root)
	}
	before, err := b.Head(ctx)
	if err != nil || before == "" {
		t.Fatalf("head before integration: %q, %v", before, err)
	}
	if in, err := b.Integrated(ctx, p1.Changes); err != nil || len(in) == 0 || in[p1.Change] {
		t.Errorf("integrated before integration: %v, %v; want task-1's change present and not in the target", in, err)
	}
	for name, changes := range map[string]func() ([]engine.Change, error){
		"changes": func() ([]engine.Change, error) { return b.Changes(ctx, ws1) },
		"find":    func() ([]engine.Change, error) { return b.Find(ctx, ws1) },
	} {
		cs, err := changes()
		if err != nil || len(cs) == 0 || cs[0].Change == "" {
			t.Errorf("%s of task-1: %+v, %v", name, cs, err)
			continue
		}
		var files []engine.FileLines
		for _, c := range cs {
			files = append(files, c.Files...)
		}
		if want := []engine.FileLines{{Path: "a.txt", Added: 3, Removed: 1}}; !slices.Equal(files, want) {
			t.Errorf("%s of task-1: files %+v, want %+v", name, files, want)
		}
	}
	if cs, err := b.Find(ctx, engine.Workspace{Name: "task-9", Base: []string{f.base}, Message: "Task: task-9"}); err != nil || len(cs) != 0 {
		t.Errorf("find of a workspace never made: %+v, %v; want none", cs, err)
	}
	if d, err := b.ChangesDiff(ctx, p1.Changes); err != nil || !strings.Contains(string(d), "+twelve\n") || !strings.Contains(string(d), "-1\n") || strings.Contains(string(d), "c.txt") {
		t.Errorf("changes diff of task-1: %v\n%s", err, d)
	}

	// Two disjoint tasks integrate cleanly: in one operation where
	// the backend can (an empty result among them is skipped),
	// else one by one.
	if bi, ok := b.(engine.BatchIntegrator); ok {
		if _, err := bi.IntegrateAll(ctx, []engine.Produced{p1, {Workspace: "task-5"}, p2}); err != nil {
			t.Fatalf("integrate task-1 and task-2 together: %v", err)
		}
	} else {
		for _, p := range []engine.Produced{p1, p2} {
			if err := b.Integrate(ctx, p); err != nil {
				t.Fatalf("integrate %s: %v", p.Workspace, err)
			}
		}
	}
	if got := read(t, f.root, "a.txt"); !strings.HasPrefix(got, "one\n") || !strings.HasSuffix(got, "twelve\n") {
		t.Errorf("target a.txt after integration:\n%s", got)
	}
	if got := read(t, f.root, "c.txt"); got != "new\n" {
		t.Errorf("target c.txt after integration: %q", got)
	}
	if after, err := b.Head(ctx); err != nil || after == before {
		t.Errorf("head after integration: %q, %v; want it moved from %q", after, err, before)
	}
	if tip, err := b.Tip(ctx); err != nil || len(tip) != 1 {
		t.Errorf("tip: %v, %v; want one revision", tip, err)
	}
	if in, err := b.Integrated(ctx, append(p1.Changes, p2.Changes...)); err != nil || slices.Contains(slices.Collect(maps.Values(in)), false) {
		t.Errorf("integrated after integration: %v, %v; want every change gone or in the target", in, err)
	}
	if got, err := b.ChangedFiles(ctx, f.base); err != nil || !slices.Equal(got, []string{"a.txt", "b.txt", "c.txt"}) {
		t.Errorf("changed files since the base: %v, %v", got, err)
	}
	if d, err := b.Diff(ctx, f.base); err != nil || !strings.Contains(string(d), "+twelve\n") || !strings.Contains(string(d), "+new\n") {
		t.Errorf("diff since the base: %v\n%s", err, d)
	}
	if got, err := b.Conflicts(ctx); err != nil || len(got) != 0 {
		t.Errorf("conflicts after a clean integration: %v, %v", got, err)
	}

	// Two overlapping tasks: the second reports a conflict naming
	// the file.
	ws3, ws4 := provision("task-3"), provision("task-4")
	worker(t, ws3, `sed -i 's/^5$/five (task 3)/' a.txt`)
	worker(t, ws4, `sed -i 's/^5$/FIVE (task 4)/' a.txt`)
	p3, p4 := collect(ws3), collect(ws4)
	if err := b.Integrate(ctx, p3); err != nil {
		t.Fatalf("integrate task-3: %v", err)
	}
	err = b.Integrate(ctx, p4)
	var ce *engine.ConflictError
	if !errors.Is(err, engine.ErrConflict) || !errors.As(err, &ce) || !slices.Equal(ce.Files, []string{"a.txt"}) {
		t.Errorf("integrate overlapping task-4: %v; want a conflict naming a.txt", err)
	}
	// jj leaves the conflict in @.
	if got, err := b.Conflicts(ctx); err != nil || !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("conflicts after the overlapping task-4: %v, %v; want a.txt", got, err)
	}
	return ws3, ws4
}

// checkHalfMade holds the jj backend's Check to a half-made workspace:
// named as one to remake, alone and (BatchChecker) together with a good
// one and one never made.
func checkHalfMade(t *testing.T, f fixture, ws1, half engine.Workspace) {
	t.Helper()
	ctx, b := t.Context(), f.b
	if problem, err := b.Check(ctx, half, false); err != nil || problem == "" {
		t.Errorf("check of the half-made task-6 = %q, %v; want the difference named", problem, err)
	}
	// Checked together where the backend can, each answer is
	// Check's: task-1 passes (a worker's edits on its base),
	// the half-made task-6 and a workspace never made do not.
	if bc, ok := b.(engine.BatchChecker); ok {
		never := engine.Workspace{Name: "task-9", Base: []string{f.base}, Message: "Task: task-9"}
		all := []engine.Workspace{ws1, half, never}
		got, err := bc.CheckAll(ctx, all, false)
		if err != nil || len(got) != len(all) {
			t.Fatalf("check task-1, task-6 and task-9 together: %q, %v", got, err)
		}
		for i, ws := range all {
			want, err := b.Check(ctx, ws, false)
			if err != nil || got[i] != want || (ws.Name != "task-1") != (want != "") {
				t.Errorf("check %s together: %q; alone: %q, %v", ws.Name, got[i], want, err)
			}
		}
	}
}

// reset holds the jj backend's Snapshot and Reset to their contract on
// the fresh workspace ws7.
func reset(t *testing.T, f fixture, ws7 engine.Workspace) {
	t.Helper()
	ctx, b := t.Context(), f.b
	// Reset drops what a worker left, committed or not, and puts
	// the workspace back on its base.
	ws7.Message = "Task: task-7"
	s0, err := b.Snapshot(ctx, ws7)
	if again, err2 := b.Snapshot(ctx, ws7); err != nil || err2 != nil || s0 == "" || again != s0 {
		t.Errorf("snapshots of an untouched workspace: %q, %q (%v, %v); want one identity", s0, again, err, err2)
	}
	worker(t, ws7, `echo seven > seven.txt`)
	if s1, err := b.Snapshot(ctx, ws7); err != nil || s1 == s0 {
		t.Errorf("snapshot after the worker's edit: %q, %v; want it to differ from %q", s1, err, s0)
	}
	if _, err := b.Collect(ctx, ws7); err != nil {
		t.Fatalf("collect task-7: %v", err)
	}
	worker(t, ws7, `echo more > more.txt && sed -i 's/^2$/two/' a.txt`)
	if err := b.Reset(ctx, ws7); err != nil {
		t.Fatalf("reset task-7: %v", err)
	}
	if p, err := b.Collect(ctx, ws7); err != nil || !p.Empty() || !f.onBase(t, ws7.Path) || fileExists(filepath.Join(ws7.Path, "seven.txt")) || fileExists(filepath.Join(ws7.Path, "more.txt")) {
		t.Errorf("after reset, task-7 holds %+v, %v (on base: %v)", p, err, f.onBase(t, ws7.Path))
	}
}

// halfMade leaves workspace name as a provision killed between its
// steps does. jj: `jj workspace add` is two operations, and a kill
// between them leaves a workspace whose working copy sits on root()
// (made here with jj itself). git: the test binary provisions in a child
// that SIGKILLs itself between creating the branch and adding the
// worktree.
func halfMade(t *testing.T, f fixture, name string) {
	t.Helper()
	path := f.w.Path(name)
	switch f.vcs {
	case "jj":
		run(t, f.root, "jj", "workspace", "add", "--no-colocate", "--name", name, "-r", "root()", path)
		if f.onBase(t, path) {
			t.Fatal("the half-made jj workspace is on the base already")
		}
	case "git":
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		err = xec.Run(t.Context(), xec.Cmd{Name: exe, Args: []string{"-test.run=^$"}, Env: []string{
			childEnv + "=" + f.root, childEnv + "_DIR=" + f.dir, childEnv + "_NAME=" + name, childEnv + "_BASE=" + f.base,
			engine.CrashEnv + "=provision-git-branch",
		}})
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("child provision: %v; want it killed by SIGKILL at the crash point", err)
		}
		if got := run(t, f.root, "git", "branch", "--list", name); got == "" {
			t.Fatal("the killed provision left no branch: the crash point is not between its steps")
		}
		if fileExists(path) {
			t.Fatal("the killed provision made the worktree: the crash point is not between its steps")
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
