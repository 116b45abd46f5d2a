package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/xec"
)

// GitHub is gh-specstack's: jj-openspec pushes its bookmarks, opens pull
// requests and registers stacks by running gh-specstack's push, pr and
// link verbs. It links no HTTP client and no TLS, which made every run of
// jj-openspec (list, validate, status, a few milliseconds of work) half
// as long again and its binary a third larger.

// GitHubProgram is the program jj-openspec publishes through.
const GitHubProgram = "gh-specstack"

// GitHubTimeout bounds one run of it: a push and a few requests, each
// request bounded by [github] timeout.
const GitHubTimeout = 10 * time.Minute

// Program finds gh-specstack: beside jj-openspec's own executable
// first (make install puts the three there), else on PATH.
func Program() string {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), GitHubProgram)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return GitHubProgram // looked up on PATH when run
}

// GitHubProgramPath is the gh-specstack jj-openspec publishes through
// (beside it, else on PATH); "" when there is none.
func GitHubProgramPath() string {
	p := Program()
	if p != GitHubProgram {
		return p
	}
	if lp, err := xec.LookPath(p); err == nil {
		return lp
	}
	return ""
}

// Run runs `gh-specstack -R dir VERB --json ARGS...` with stdin and
// decodes its JSON report into out. Its progress (stderr) goes to
// progress when not nil. A failure keeps gh-specstack's exit code and
// message.
func Run(ctx context.Context, dir string, stdin io.Reader, progress io.Writer, out any, verb string, args ...string) error {
	return RunWithin(ctx, GitHubTimeout, dir, stdin, progress, out, verb, args...)
}

// RunWithin is Run bounded by timeout instead of GitHubTimeout. verb may
// be two words ("executor follow").
func RunWithin(ctx context.Context, timeout time.Duration, dir string, stdin io.Reader, progress io.Writer, out any, verb string, args ...string) error {
	prog := Program()
	argv := append(append([]string{"-R", dir}, strings.Fields(verb)...), "--json")
	argv = append(argv, args...)
	var stdout bytes.Buffer
	// Setpgid: a timeout or Ctrl-C kills its jj or git push too.
	err := xec.Run(ctx, xec.Cmd{Name: prog, Args: argv, Dir: dir, Stdin: stdin, Stdout: &stdout, Stderr: progress, Timeout: timeout, Setpgid: true})
	if err != nil {
		if errors.Is(err, xec.ErrNotFound) {
			return ErrNoProgram()
		}
		var xe *xec.Error
		if errors.As(err, &xe) && xe.ExitCode > 0 {
			return exitcode.Wrap(exitcode.Code(xe.ExitCode), fmt.Errorf("gh specstack %s: %s", verb, Failure(xe.Stderr)))
		}
		return fmt.Errorf("gh specstack %s: %w", verb, err)
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("gh specstack %s printed no report (%w): %q", verb, err, Truncate(stdout.String(), 200))
	}
	return nil
}

func ErrNoProgram() error {
	return exitcode.New(exitcode.Missing, "%s is not installed: jj-openspec pushes and opens pull requests through it (make install puts it beside jj-openspec); install it, or pass --no-push", GitHubProgram)
}

// Failure is gh-specstack's error message in its stderr: from its last
// line starting "gh-specstack: " to the end (the message often carries
// jj's or git's own lines, hints included), else all of it.
func Failure(stderr string) string {
	msg := strings.TrimSpace(stderr)
	prefix := GitHubProgram + ": "
	if strings.HasPrefix(msg, prefix) {
		msg = msg[len(prefix):]
	} else if i := strings.LastIndex(msg, "\n"+prefix); i >= 0 {
		msg = msg[i+1+len(prefix):]
	}
	return msg
}

// Truncate cuts s to at most n bytes, at a character boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Pushed is `gh specstack push`'s report.
type Pushed struct {
	Branch string `json:"branch"`
	Push   string `json:"push"`
}

// Publish pushes bookmark to origin once (gh specstack push): never over
// another commit, never forced. It returns pushed or already-published.
func Publish(ctx context.Context, dir, bookmark string) (string, error) {
	var p Pushed
	if err := Run(ctx, dir, nil, nil, &p, "push", "--", bookmark); err != nil {
		return "", err
	}
	return p.Push, nil
}

// NewPull is a pull request to open (or whose body to update).
type NewPull struct {
	Title, Head, Base, Body string
	Draft                   bool
}

// UpsertPR updates the body of the open pull request of pr.Head, or
// opens pr (on the repository's default branch when pr.Base is empty),
// through `gh specstack pr`, which pushes pr.Head first when origin does
// not have it.
func UpsertPR(ctx context.Context, dir string, pr NewPull) (*PRView, error) {
	args := append(prFlags(pr, "-"), "--", pr.Head)
	var v PRView
	if err := Run(ctx, dir, strings.NewReader(pr.Body), nil, &v, "pr", args...); err != nil {
		return nil, err
	}
	return &v, nil
}

// prFlags are `gh specstack pr`'s flags opening pr, its body read from
// bodyFile (- for standard input).
func prFlags(pr NewPull, bodyFile string) []string {
	args := []string{"--title", pr.Title, "--body-file", bodyFile}
	if pr.Base != "" {
		args = append(args, "--base", pr.Base)
	}
	if pr.Draft {
		args = append(args, "--draft")
	}
	return args
}

// PushCommand is the command a person runs to push bookmark as Publish
// does.
func PushCommand(bookmark string) string { return command("push", bookmark) }

// PRCommand is the command a person runs to open pr as UpsertPR does
// (pushing its head first when origin lacks it), its body read from
// bodyFile (pr.Body is not used).
func PRCommand(pr NewPull, bodyFile string) string {
	return command("pr", append(prFlags(pr, bodyFile), pr.Head)...)
}

// LinkCommand is the command a person runs to make branches, bottom
// first, a stack of pull requests as LinkStack does.
func LinkCommand(branches []string) string { return command("link", branches...) }

// command is `gh specstack VERB ARGS` as a person types it: each
// argument one sh word, quoted unless it holds only characters sh
// takes literally.
func command(verb string, args ...string) string {
	words := []string{"gh", "specstack", verb}
	for _, a := range args {
		words = append(words, xec.ShellWord(a))
	}
	return strings.Join(words, " ")
}

// Linked is the part of `gh specstack link`'s report a pipeline keeps.
type Linked struct {
	StackMode   string `json:"stack_mode"`
	Stack       int    `json:"stack"`
	StackAction string `json:"stack_action"`
}

// UnmarshalJSON reads the report of this gh-specstack and of one older
// than the snake_case names, which wrote stackMode and stackAction.
func (l *Linked) UnmarshalJSON(data []byte) error {
	type plain Linked
	var v struct {
		plain
		OldMode   string `json:"stackMode"`
		OldAction string `json:"stackAction"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*l = Linked(v.plain)
	if l.StackMode == "" {
		l.StackMode = v.OldMode
	}
	if l.StackAction == "" {
		l.StackAction = v.OldAction
	}
	return nil
}

// LinkStack registers branches, bottom first, as a stack (gh specstack
// link), its progress going to progress.
// link waits, when another gh-specstack holds its ledger lock (exit 3),
// at most linkLockWait in all.
func LinkStack(ctx context.Context, dir string, branches []string, progress io.Writer) (*Linked, error) {
	var l Linked
	deadline := time.Now().Add(linkLockWait)
	for wait := 250 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := Run(ctx, dir, nil, progress, &l, "link", append([]string{"--"}, branches...)...)
		if exitcode.Of(err) != exitcode.Locked || time.Now().Add(wait).After(deadline) {
			if err != nil {
				return nil, err
			}
			return &l, nil
		}
		select {
		case <-ctx.Done():
			return nil, exitcode.Wrap(exitcode.Interrupted, fmt.Errorf("gh specstack link: stopped while waiting for another gh-specstack's lock: %w", ctx.Err()))
		case <-time.After(wait):
		}
	}
}

// linkLockWait bounds how long a pipeline's stack registration waits for
// another gh-specstack (a second stack of the same pipeline, a person's
// run) to release the repository's lock.
const linkLockWait = 2 * time.Minute

// PRView is the pull request a workflow opened or updated.
type PRView struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	Action string `json:"action"` // created or updated
}
