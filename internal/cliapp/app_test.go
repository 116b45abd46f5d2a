package cliapp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

func run(t *testing.T, s cliapp.Spec, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cliapp.Run(s, append([]string{s.Name}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
		Name:   "fail",
		Action: func(*cli.Context) error { return exitcode.New(exitcode.Invalid, "bad thing") },
	}}}
	code, _, stderr := run(t, s, "fail")
	if code != int(exitcode.Invalid) || stderr != "tool: bad thing\n" {
		t.Errorf("fail: code %d stderr %q", code, stderr)
	}
	code, _, _ = run(t, s, "fail", "--no-such-flag")
	if code != int(exitcode.Usage) {
		t.Errorf("unknown flag: code %d, want %d", code, exitcode.Usage)
	}
	code, _, _ = run(t, s, "completion", "tcsh")
	if code != int(exitcode.Usage) {
		t.Errorf("unknown shell: code %d, want %d", code, exitcode.Usage)
	}
}

// TestLowerLayerErrorsExit: an error a lower layer returns, wrapped on
// its way up, exits with the code the table gives it; a failed jj call
// is a failure (1), not a usage error, though it knows jj's exit status.
func TestLowerLayerErrorsExit(t *testing.T) {
	jjFailed := &jjx.Error{Op: []string{"log"}, Err: &xec.Error{Argv: []string{"jj", "log"}, ExitCode: 1, Stderr: "Error: boom"}}
	tests := []struct {
		name string
		err  error
		want exitcode.Code
	}{
		{"locked", fmt.Errorf("apply: %w", &ledger.LockedError{Dir: "/l"}), exitcode.Locked},
		{"jj missing", fmt.Errorf("open: %w", jjx.ErrNotFound), exitcode.Missing},
		{"jj failed", fmt.Errorf("read the log: %w", jjFailed), exitcode.Failure},
	}
	for _, tt := range tests {
		s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
			Name:   "fail",
			Action: func(*cli.Context) error { return tt.err },
		}}}
		code, _, stderr := run(t, s, "fail")
		if code != int(tt.want) || stderr != "tool: "+tt.err.Error()+"\n" {
			t.Errorf("%s: code %d stderr %q, want code %d", tt.name, code, stderr, tt.want)
		}
	}
}

func TestJSONAndRepoFlagsEitherSide(t *testing.T) {
	var got []string
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
		Name: "show",
		Action: func(c *cli.Context) error {
			dir, err := cliapp.RepoDir(c)
			got = append(got, fmt.Sprintf("%v %s %v", cliapp.JSON(c), filepath.Base(dir), err))
			return nil
		},
	}}}
	tmp := t.TempDir()
	for _, d := range []string{"x", "y"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run(t, s, "--json", "-R", filepath.Join(tmp, "x"), "show")
	run(t, s, "show", "--json", "--repo", filepath.Join(tmp, "y"))
	run(t, s, "show")
	wd, _ := os.Getwd()
	want := []string{"true x <nil>", "true y <nil>", "false " + filepath.Base(wd) + " <nil>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A --repo that names no directory is a usage error saying so; one that
// looks like gh's OWNER/REPO says what -R means here.
func TestRepoFlagNoDirectory(t *testing.T) {
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
		Name: "show",
		Action: func(c *cli.Context) error {
			_, err := cliapp.RepoDir(c)
			return err
		},
	}}}
	t.Chdir(t.TempDir())
	for _, tt := range []struct{ repo, want string }{
		{"octo/widgets", "not gh's OWNER/REPO"},
		{"./nope", "there is no directory "},
	} {
		code, _, stderr := run(t, s, "-R", tt.repo, "show")
		if code != int(exitcode.Usage) || !strings.Contains(stderr, "--repo "+tt.repo+": there is no directory ") || !strings.Contains(stderr, tt.want) {
			t.Errorf("-R %s: code %d, stderr %q", tt.repo, code, stderr)
		}
	}
	if _, _, stderr := run(t, s, "-R", "./nope", "show"); strings.Contains(stderr, "OWNER/REPO") {
		t.Errorf("-R ./nope: %q speaks of OWNER/REPO", stderr)
	}
}

// TestCompletionScriptsParse checks each script with its own shell's
// syntax check (bash always; zsh and fish when installed).
func TestCompletionScriptsParse(t *testing.T) {
	app := cliapp.New(cliapp.Spec{Name: "jj-kaisen"})
	for _, shell := range []string{"bash", "zsh", "fish"} {
		script, err := cliapp.CompletionScript(app, shell)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(script, "--generate-bash-completion") || !strings.Contains(script, "jj-kaisen") {
			t.Errorf("%s script lacks the completion call:\n%s", shell, script)
		}
		if _, err := xec.LookPath(shell); err != nil {
			if shell == "bash" {
				t.Fatal("bash not found")
			}
			continue
		}
		f := filepath.Join(t.TempDir(), "c."+shell)
		os.WriteFile(f, []byte(script), 0o644)
		if err := xec.Run(t.Context(), xec.Cmd{Name: shell, Args: []string{"-n", f}}); err != nil {
			t.Errorf("%s -n: %v\n%s", shell, err, script)
		}
	}
}

// TestBashCompletionCandidates asks the app for candidates the way the
// scripts do.
func TestBashCompletionCandidates(t *testing.T) {
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{Name: "dance", Action: func(*cli.Context) error { return nil }}}}
	// urfave/cli reads the typed words from os.Args, as in a real shell.
	saved := os.Args
	os.Args = []string{"tool", "--generate-bash-completion"}
	defer func() { os.Args = saved }()
	code, out, _ := run(t, s, "--generate-bash-completion")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"dance", "doctor", "completion"} {
		if !strings.Contains(out, want) {
			t.Errorf("candidates %q lack %q", out, want)
		}
	}
	if strings.Contains(out, "man") {
		t.Errorf("man command offered (man pages come from make man): %q", out)
	}
}

// TestReadmeExitCodes keeps the README's table equal to the frozen one.
func TestReadmeExitCodes(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exitcode.Table {
		row := fmt.Sprintf("| %d | %s | %s |", e.Code, e.Name, e.Meaning)
		if !bytes.Contains(readme, []byte(row)) {
			t.Errorf("README.md lacks exit-code row %q", row)
		}
	}
}

func TestArgsAcceptsTrailingFlags(t *testing.T) {
	var got string
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
		Name:  "archive",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "yes"}, &cli.StringFlag{Name: "base"}, &cli.StringSliceFlag{Name: "task"}},
		Action: func(c *cli.Context) error {
			pos, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			got = fmt.Sprintf("%q yes=%v base=%s task=%q json=%v", pos, c.Bool("yes"), c.String("base"), c.StringSlice("task"), cliapp.JSON(c))
			return nil
		},
	}}}
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"archive", "ch", "--yes", "--base", "main", "--json"}, `["ch"] yes=true base=main task=[] json=true`, 0},
		{[]string{"archive", "--base=dev", "a", "--task", "x", "--task=y", "b"}, `["a" "b"] yes=false base=dev task=["x" "y"] json=false`, 0},
		{[]string{"archive", "a", "--", "--yes", "-"}, `["a" "--yes" "-"] yes=false base= task=[] json=false`, 0},
		{[]string{"archive", "a", "--nope"}, "", int(exitcode.Usage)},
		{[]string{"archive", "a", "--base"}, "", int(exitcode.Usage)},
	} {
		got = ""
		code, _, stderr := run(t, s, tc.args...)
		if code != tc.code || got != tc.want {
			t.Errorf("%q: code %d got %s (stderr %q); want %d %s", tc.args, code, got, stderr, tc.code, tc.want)
		}
	}
}

// completion --json is the script in a document naming its shell.
func TestCompletionJSON(t *testing.T) {
	s := cliapp.Spec{Name: "tool"}
	code, out, stderr := run(t, s, "completion", "fish", "--json")
	var doc struct{ Shell, Script string }
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("code %d, stderr %q, %v:\n%s", code, stderr, err, out)
	}
	_, plain, _ := run(t, s, "completion", "fish")
	if doc.Shell != "fish" || doc.Script != plain || !strings.Contains(plain, "complete -c tool") {
		t.Errorf("completion --json: shell %q, script\n%s\nwant the plain script\n%s", doc.Shell, doc.Script, plain)
	}
}
