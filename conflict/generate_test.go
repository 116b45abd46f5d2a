package conflict_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// regenerate rebuilds testdata/*.conflict from real jj and git runs:
//
//	go test ./conflict -run TestGenerateInputs -regenerate
//
// Then `go test ./conflict -update` rewrites the goldens read from them.
var regenerate = flag.Bool("regenerate", false, "rebuild testdata/*.conflict by running jj and git")

// sandbox runs jj and git in a private directory with a fixed identity,
// clock and random seed, so regenerated inputs are stable.
type sandbox struct {
	t    *testing.T
	dir  string
	env  []string
	seed int // advanced per command, as jj's own tests do
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	testenv.RequireJJ(t)
	home := t.TempDir()
	vars, err := testenv.Vars(home)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	env = append(env, "JJ_TIMESTAMP=2026-01-02T03:04:05Z", "JJ_OP_TIMESTAMP=2026-01-02T03:04:05Z")
	return &sandbox{t: t, dir: t.TempDir(), env: env}
}

func (s *sandbox) cmdEnv() []string {
	s.seed++
	return append(append([]string{}, s.env...), "JJ_RANDOMNESS_SEED="+strconv.Itoa(1000+s.seed))
}

func (s *sandbox) run(dir, name string, args ...string) string {
	s.t.Helper()
	out, err := xec.Output(s.t.Context(), xec.Cmd{Name: name, Args: args, Dir: filepath.Join(s.dir, dir), Env: s.cmdEnv()})
	if err != nil {
		s.t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// try runs a command that may fail (git merge with conflicts).
func (s *sandbox) try(dir, name string, args ...string) {
	_, _ = xec.Output(s.t.Context(), xec.Cmd{Name: name, Args: args, Dir: filepath.Join(s.dir, dir), Env: s.cmdEnv()})
}

func (s *sandbox) write(path, content string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, path), []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sandbox) read(path string) string {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, path))
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// jjCase builds a conflict in jj: base, then one change per side on top
// of it, combined by a merge commit ("merge") or by squashing every later
// side into the first ("squash"); the file is then shown in each style.
type jjCase struct {
	name   string
	base   string
	sides  []string
	how    string // "merge" or "squash"
	styles []string
}

func (s *sandbox) jjConflict(c jjCase) map[string]string {
	s.t.Helper()
	repo := c.name
	s.run("", "jj", "git", "init", "--no-colocate", repo)
	s.write(filepath.Join(repo, "f.txt"), c.base)
	s.run(repo, "jj", "describe", "-m", "base")
	baseID := strings.TrimSpace(s.run(repo, "jj", "log", "--no-graph", "-r", "@", "-T", "change_id"))
	var ids []string
	for i, side := range c.sides {
		s.run(repo, "jj", "new", "-m", "side "+string(rune('A'+i)), baseID)
		s.write(filepath.Join(repo, "f.txt"), side)
		ids = append(ids, strings.TrimSpace(s.run(repo, "jj", "log", "--no-graph", "-r", "@", "-T", "change_id")))
	}
	rev := ids[0]
	switch c.how {
	case "merge":
		s.run(repo, "jj", append([]string{"new", "-m", "merge"}, ids...)...)
		rev = "@"
	case "squash":
		for _, id := range ids[1:] {
			s.run(repo, "jj", "squash", "--from", id, "--into", ids[0], "-u")
		}
	}
	out := map[string]string{}
	for _, style := range c.styles {
		out[c.name+"-"+style] = s.run(repo, "jj", "--config", "ui.conflict-marker-style="+style, "file", "show", "-r", rev, "f.txt")
	}
	return out
}

// gitConflict merges a branch with git's own merge in each conflict style.
func (s *sandbox) gitConflict(name, base, ours, theirs string, styles []string) map[string]string {
	s.t.Helper()
	out := map[string]string{}
	for _, style := range styles {
		repo := name + "-" + style
		s.run("", "git", "init", "-q", repo)
		s.write(filepath.Join(repo, "f.txt"), base)
		s.run(repo, "git", "add", "f.txt")
		s.run(repo, "git", "commit", "-q", "-m", "base")
		s.run(repo, "git", "checkout", "-q", "-b", "feature")
		s.write(filepath.Join(repo, "f.txt"), theirs)
		s.run(repo, "git", "commit", "-q", "-am", "theirs")
		s.run(repo, "git", "checkout", "-q", "main")
		s.write(filepath.Join(repo, "f.txt"), ours)
		s.run(repo, "git", "commit", "-q", "-am", "ours")
		s.try(repo, "git", "-c", "merge.conflictStyle="+style, "merge", "-q", "feature")
		out["git-"+name+"-"+style] = s.read(filepath.Join(repo, "f.txt"))
	}
	return out
}

// gitCrissCross merges two branches that each merged the other: git's
// recursive merge writes the conflict of their virtual base, with longer
// markers, inside the base section of the real one.
func (s *sandbox) gitCrissCross(name string) map[string]string {
	s.t.Helper()
	repo := name
	s.run("", "git", "init", "-q", repo)
	step := func(content string, args ...string) {
		if content != "" {
			s.write(filepath.Join(repo, "f.txt"), content)
		}
		if len(args) > 0 {
			s.run(repo, "git", args...)
		}
	}
	step("x\nline\ny\n", "add", "f.txt")
	step("", "commit", "-q", "-m", "base")
	step("", "checkout", "-q", "-b", "A")
	step("x\nA1\ny\n", "commit", "-q", "-am", "A1")
	step("", "checkout", "-q", "-b", "B", "main")
	step("x\nB1\ny\n", "commit", "-q", "-am", "B1")
	step("", "checkout", "-q", "A")
	s.try(repo, "git", "merge", "-q", "-m", "A+B", "B")
	step("x\nAB\ny\n", "commit", "-q", "-am", "AB")
	step("", "checkout", "-q", "B")
	s.try(repo, "git", "merge", "-q", "-m", "B+A", "A~1")
	step("x\nBA\ny\n", "commit", "-q", "-am", "BA")
	step("", "checkout", "-q", "A")
	s.try(repo, "git", "-c", "merge.conflictStyle=diff3", "merge", "-q", "B")
	return map[string]string{"git-" + name + "-diff3": s.read(filepath.Join(repo, "f.txt"))}
}

const tasksBase = `# Tasks

## 1. Parser
- [ ] 1.1 Read the markers
- [ ] 1.2 Render them back

## 2. Resolver
- [ ] 2.1 Take one side
- [ ] 2.2 Union of sides
`

// TestGenerateInputs produces every conflicted input with the real jj and
// git and checks that the checked-in testdata/*.conflict files are exactly
// what they produce; with -regenerate it rewrites them instead.
func TestGenerateInputs(t *testing.T) {
	s := newSandbox(t)
	all := map[string]string{}
	add := func(m map[string]string) {
		for k, v := range m {
			all[k] = v
		}
	}
	styles := []string{"diff", "snapshot", "git"}
	add(s.jjConflict(jjCase{name: "jj-two-sides", how: "squash", styles: styles,
		base:  "one\ntwo\nthree\nfour\nfive\n",
		sides: []string{"one\nTWO left\nthree\nfour\nfive\n", "one\nTWO right\nthree\nfour\nFIVE right\n"}}))
	add(s.jjConflict(jjCase{name: "jj-two-hunks", how: "merge", styles: styles,
		base:  "a\nb\nc\nd\ne\nf\ng\n",
		sides: []string{"a\nB1\nc\nd\ne\nF1\ng\n", "a\nB2\nc\nd\ne\nF2\nF2b\ng\n"}}))
	add(s.jjConflict(jjCase{name: "jj-three-sides", how: "merge", styles: styles,
		base:  "head\nmiddle\ntail\n",
		sides: []string{"head\nmiddle A\ntail\n", "head\nmiddle B\ntail\n", "head\nmiddle C\nmore C\ntail\n"}}))
	add(s.jjConflict(jjCase{name: "jj-three-sides-squash", how: "squash", styles: []string{"diff"},
		base:  "head\nmiddle\ntail\n",
		sides: []string{"head\nmiddle A\ntail\n", "head\nmiddle B\ntail\n", "head\nmiddle C\ntail\n"}}))
	add(s.jjConflict(jjCase{name: "jj-marker-like", how: "merge", styles: styles,
		base:  "intro\n<<<<<<< not a conflict\n=======\nvalue\n>>>>>>> still not\n",
		sides: []string{"intro\n<<<<<<< not a conflict\n=======\nvalue left\n>>>>>>> still not\n", "intro\n<<<<<<< not a conflict\n=======\nvalue right\n>>>>>>> still not\n"}}))
	add(s.jjConflict(jjCase{name: "jj-no-final-newline", how: "merge", styles: styles,
		base:  "a\nb\nlast",
		sides: []string{"a\nb\nlast left", "a\nb\nlast right\n"}}))
	add(s.jjConflict(jjCase{name: "jj-crlf", how: "merge", styles: styles,
		base:  "a\r\nb\r\nc\r\n",
		sides: []string{"a\r\nB left\r\nc\r\n", "a\r\nB right\r\nc\r\n"}}))
	add(s.jjConflict(jjCase{name: "jj-tasks", how: "squash", styles: styles,
		base:  tasksBase,
		sides: []string{strings.NewReplacer("- [ ] 1.1", "- [x] 1.1", "- [ ] 2.1", "- [x] 2.1").Replace(tasksBase), strings.NewReplacer("- [ ] 1.2", "- [x] 1.2", "- [ ] 2.2", "- [x] 2.2").Replace(tasksBase)}}))
	gitStyles := []string{"merge", "diff3", "zdiff3"}
	add(s.gitConflict("two-sides", "one\ntwo\nthree\n", "one\ntwo ours\nthree\n", "one\ntwo theirs\nthree\n", gitStyles))
	add(s.gitConflict("tasks", tasksBase,
		strings.NewReplacer("- [ ] 1.1", "- [x] 1.1", "- [ ] 2.1", "- [x] 2.1").Replace(tasksBase),
		strings.NewReplacer("- [ ] 1.2", "- [x] 1.2", "- [ ] 2.2", "- [x] 2.2").Replace(tasksBase), gitStyles))

	add(s.gitCrissCross("criss-cross"))

	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range all {
		if !strings.Contains(content, "<<<<<<<") {
			t.Errorf("%s: no conflict was produced:\n%s", name, content)
		}
		path := filepath.Join("testdata", name+".conflict")
		if *regenerate {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run with -regenerate)", path, err)
			continue
		}
		if string(have) != content {
			t.Errorf("%s differs from what jj/git produce now (run with -regenerate):\n--- checked in\n%s--- produced\n%s", path, have, content)
		}
	}
}
