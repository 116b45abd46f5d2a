package osapply

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

// gitHubProgram finds gh-specstack: beside jj-openspec's own executable
// first (make install puts the three there), else on PATH.
func gitHubProgram() string {
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
	p := gitHubProgram()
	if p != GitHubProgram {
		return p
	}
	if lp, err := xec.LookPath(p); err == nil {
		return lp
	}
	return ""
}

// runGitHub runs `gh-specstack -R dir VERB --json ARGS...` with stdin and
// decodes its JSON report into out. Its progress (stderr) goes to
// progress when not nil. A failure keeps gh-specstack's exit code and
// message.
func runGitHub(ctx context.Context, dir string, stdin io.Reader, progress io.Writer, out any, verb string, args ...string) error {
	prog := gitHubProgram()
	argv := append([]string{"-R", dir, verb, "--json"}, args...)
	var stdout bytes.Buffer
	// Setpgid: a timeout or Ctrl-C kills its jj or git push too.
	err := xec.Run(ctx, xec.Cmd{Name: prog, Args: argv, Dir: dir, Stdin: stdin, Stdout: &stdout, Stderr: progress, Timeout: GitHubTimeout, Setpgid: true})
	if err != nil {
		if errors.Is(err, xec.ErrNotFound) {
			return errNoGitHubProgram()
		}
		var xe *xec.Error
		if errors.As(err, &xe) && xe.ExitCode > 0 {
			return exitcode.Wrap(exitcode.Code(xe.ExitCode), fmt.Errorf("gh specstack %s: %s", verb, failure(xe.Stderr)))
		}
		return fmt.Errorf("gh specstack %s: %w", verb, err)
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("gh specstack %s printed no report (%w): %q", verb, err, truncate(stdout.String(), 200))
	}
	return nil
}

func errNoGitHubProgram() error {
	return exitcode.New(exitcode.Missing, "%s is not installed: jj-openspec pushes and opens pull requests through it (make install puts it beside jj-openspec); install it, or pass --no-push", GitHubProgram)
}

// checkPublish checks, before any worker runs, what publishing plan p
// needs: nothing with --no-push; gh-specstack for the push; for the pull
// request also a GitHub repository (GH_REPO or origin) and a token, by
// `gh specstack pr --check` (no push, no request). A gap is exit 7
// naming it and the flags that do without it.
func checkPublish(ctx context.Context, dir string, p *Plan) error {
	if p.NoPush {
		return nil
	}
	if prog := gitHubProgram(); !filepath.IsAbs(prog) {
		if _, err := xec.LookPath(prog); err != nil {
			return errNoGitHubProgram()
		}
	}
	if p.NoPR {
		return nil
	}
	var v struct {
		Repository string `json:"repository"`
	}
	err := runGitHub(ctx, dir, nil, nil, &v, "pr", "--check", "--", p.Bookmark)
	switch exitcode.Of(err) {
	case exitcode.OK, exitcode.Interrupted:
		return err
	}
	return exitcode.New(exitcode.Missing, "apply: the pull request cannot be opened: %v; nothing was run. Pass --no-pr to push without a pull request, or --no-push (or set [openspec] pr = false)", err)
}

// failure is gh-specstack's error message in its stderr: from its last
// line starting "gh-specstack: " to the end (the message often carries
// jj's or git's own lines, hints included), else all of it.
func failure(stderr string) string {
	msg := strings.TrimSpace(stderr)
	prefix := GitHubProgram + ": "
	if strings.HasPrefix(msg, prefix) {
		msg = msg[len(prefix):]
	} else if i := strings.LastIndex(msg, "\n"+prefix); i >= 0 {
		msg = msg[i+1+len(prefix):]
	}
	return msg
}

// truncate cuts s to at most n bytes, at a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// pushed is `gh specstack push`'s report.
type pushed struct {
	Branch string `json:"branch"`
	Push   string `json:"push"`
}

// publish pushes bookmark to origin once (gh specstack push): never over
// another commit, never forced. It returns pushed or already-published.
func publish(ctx context.Context, dir, bookmark string) (string, error) {
	var p pushed
	if err := runGitHub(ctx, dir, nil, nil, &p, "push", "--", bookmark); err != nil {
		return "", err
	}
	return p.Push, nil
}

// newPull is a pull request to open (or whose body to update).
type newPull struct {
	Title, Head, Base, Body string
	Draft                   bool
}

// upsertPR updates the body of the open pull request of pr.Head, or
// opens pr (on the repository's default branch when pr.Base is empty),
// through `gh specstack pr`, which pushes pr.Head first when origin does
// not have it.
func upsertPR(ctx context.Context, dir string, pr newPull) (*PRView, error) {
	args := []string{"--title", pr.Title, "--body-file", "-"}
	if pr.Base != "" {
		args = append(args, "--base", pr.Base)
	}
	if pr.Draft {
		args = append(args, "--draft")
	}
	args = append(args, "--", pr.Head)
	var v PRView
	if err := runGitHub(ctx, dir, strings.NewReader(pr.Body), nil, &v, "pr", args...); err != nil {
		return nil, err
	}
	return &v, nil
}

// linked is the part of `gh specstack link`'s report a pipeline keeps.
type linked struct {
	StackMode   string `json:"stack_mode"`
	Stack       int    `json:"stack"`
	StackAction string `json:"stack_action"`
}

// UnmarshalJSON reads the report of this gh-specstack and of one older
// than the snake_case names, which wrote stackMode and stackAction.
func (l *linked) UnmarshalJSON(data []byte) error {
	type plain linked
	var v struct {
		plain
		OldMode   string `json:"stackMode"`
		OldAction string `json:"stackAction"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*l = linked(v.plain)
	if l.StackMode == "" {
		l.StackMode = v.OldMode
	}
	if l.StackAction == "" {
		l.StackAction = v.OldAction
	}
	return nil
}

// linkStack registers branches, bottom first, as a stack (gh specstack
// link), its progress going to progress.
// link waits, when another gh-specstack holds its ledger lock (exit 3),
// at most linkLockWait in all.
func linkStack(ctx context.Context, dir string, branches []string, progress io.Writer) (*linked, error) {
	var l linked
	deadline := time.Now().Add(linkLockWait)
	for wait := 250 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := runGitHub(ctx, dir, nil, progress, &l, "link", append([]string{"--"}, branches...)...)
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
