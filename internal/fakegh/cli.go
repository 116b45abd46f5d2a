package fakegh

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/specstack/specstack/internal/xec"
)

// StateEnv names the state file; the default is $HOME/.fakegh.json.
const StateEnv = "FAKEGH_STATE"

// RefusingProxy is the proxy `fakegh run` points every other request at:
// nothing listens there, so a command that tries to reach anything but the
// fake (which, on loopback, is never proxied) fails.
const RefusingProxy = "http://127.0.0.1:9"

// LoopbackNoProxy is the NO_PROXY `fakegh run` sets: loopback only.
const LoopbackNoProxy = "127.0.0.1,localhost,::1"

const usage = `usage: fakegh COMMAND ...   (state in $FAKEGH_STATE, default $HOME/.fakegh.json)
  repo OWNER/NAME --origin BARE_GIT_DIR [--default-branch main] [--stacks on|off]
       [--run-details on|off] [--access write|read]
                                                   off: refuse a dispatch's return_run_details;
                                                   read: the token may not push or dispatch
  issue OWNER/NAME --title T [--body B | --body-file F] [--label L]... [--closed]
        [--parent N] [--blocked-by N]... [--no-number]
                                                   prints the new issue's number; with
                                                   --no-number it is served without one
  block OWNER/NAME N --by M                        record that N is blocked by M
  sub OWNER/NAME PARENT CHILD...                   append sub-issues to PARENT, in order
  pr OWNER/NAME --head H --base B --title T [--body B] [--draft]
                                                   open a pull request; prints its number
  dump OWNER/NAME pulls|stacks|issues|comments|runs
                                                   JSON on stdout
  fail METHOD PATH [--status 500] [--times 1] [--retry-after SECONDS]
                                                   answer the next request(s) of METHOD on
                                                   PATH (no query) with that status
  secret OWNER/NAME NAME VALUE                     set an Actions secret the runner renders
  runner OWNER/NAME [--fail | --hang | --queue] [--delay D] [--times 1] [--timeout D]
                                                   how the next dispatched run(s) go: fail
                                                   without running, run and never finish,
                                                   stay queued; after D; --timeout bounds
                                                   every run (default 10m)
  dispatch OWNER/NAME WORKFLOW [--ref BRANCH] [--input NAME=VALUE]... [--input-file NAME=FILE]...
        [--title T] [--wait]                       dispatch WORKFLOW through specstack's client
                                                   (the runner runs it); --wait follows the
                                                   run: exit 0 when it succeeds, else 1 and
                                                   the worker step's output on stderr
  log [--writes] [--clear]                         requests served, one a line
  run [--exit N] [--hang] -- COMMAND ARGS...       serve the state while COMMAND runs with
                                                   GH_SPECSTACK_API_URL pointing at it; exit
                                                   with its code, or with --exit N, 0 when it
                                                   exited N and 1 otherwise; --hang accepts
                                                   every connection and never answers`

// Main is the fakegh command.
func Main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	path := os.Getenv(StateEnv)
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			fmt.Fprintf(stderr, "fakegh: %v\n", err)
			return 1
		}
		path = filepath.Join(home, ".fakegh.json")
	}
	st, err := Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "fakegh: %v\n", err)
		return 1
	}
	var code int
	switch args[0] {
	case "run":
		code, err = runCommand(st, args[1:], stdout, stderr)
	case "dispatch":
		code, err = dispatchCommand(st, args[1:], stdout, stderr)
	default:
		err = edit(st, args, stdout)
		if err != nil {
			code = 2
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "fakegh: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	if serr := st.Save(path); serr != nil {
		fmt.Fprintf(stderr, "fakegh: %v\n", serr)
		return 1
	}
	return code
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func repoArg(st *State, args []string) (*Repo, []string, error) {
	if len(args) == 0 || !strings.Contains(args[0], "/") {
		return nil, nil, fmt.Errorf("name the repository as OWNER/NAME")
	}
	r := st.Repo(args[0])
	if r == nil {
		return nil, nil, fmt.Errorf("repository %s is not registered: run fakegh repo %s --origin DIR", args[0], args[0])
	}
	return r, args[1:], nil
}

// repoFlags parses flags and the repository argument before the rest.
func repoFlags(st *State, fs *flag.FlagSet, args []string) (*Repo, []string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return nil, nil, err
	}
	return repoArg(st, pos)
}

// parse parses flags that may come after positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func edit(st *State, args []string, stdout io.Writer) error {
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	switch cmd {
	case "repo":
		origin := fs.String("origin", "", "")
		def := fs.String("default-branch", "main", "")
		stacks := fs.String("stacks", "on", "")
		details := fs.String("run-details", "on", "")
		access := fs.String("access", "write", "")
		pos, err := parse(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 || !strings.Contains(pos[0], "/") {
			return fmt.Errorf("repo: name the repository as OWNER/NAME")
		}
		owner, name, _ := strings.Cut(pos[0], "/")
		abs := *origin
		if abs != "" {
			if abs, err = filepath.Abs(abs); err != nil {
				return err
			}
		}
		r := st.AddRepo(owner, name, abs, *def)
		r.StacksDisabled = *stacks == "off"
		r.NoRunDetails = *details == "off"
		r.ReadOnly = *access == "read"
		return nil
	case "issue":
		title := fs.String("title", "", "")
		body := fs.String("body", "", "")
		bodyFile := fs.String("body-file", "", "")
		closed := fs.Bool("closed", false, "")
		noNumber := fs.Bool("no-number", false, "")
		parent := fs.Int("parent", 0, "")
		var labels, blocked multi
		fs.Var(&labels, "label", "")
		fs.Var(&blocked, "blocked-by", "")
		r, _, err := repoFlags(st, fs, args)
		if err != nil {
			return err
		}
		text := *body
		if *bodyFile != "" {
			data, err := os.ReadFile(*bodyFile)
			if err != nil {
				return fmt.Errorf("read %q: %w", *bodyFile, err)
			}
			text = string(data)
		}
		i := r.AddIssue(*title, text, labels, *closed)
		i.NoNumber = *noNumber
		if *parent != 0 {
			if err := r.AddSubIssue(*parent, i.Number); err != nil {
				return err
			}
		}
		for _, b := range blocked {
			n, err := strconv.Atoi(strings.TrimPrefix(b, "#"))
			if err != nil {
				return fmt.Errorf("--blocked-by %q: not an issue number", b)
			}
			if err := r.AddBlockedBy(i.Number, n); err != nil {
				return err
			}
		}
		fmt.Fprintln(stdout, i.Number)
		return nil
	case "block":
		by := fs.Int("by", 0, "")
		r, rest, err := repoFlags(st, fs, args)
		if err != nil {
			return err
		}
		if len(rest) != 1 {
			return fmt.Errorf("block: name the blocked issue")
		}
		n, err := strconv.Atoi(rest[0])
		if err != nil {
			return fmt.Errorf("block: %q is not an issue number", rest[0])
		}
		return r.AddBlockedBy(n, *by)
	case "sub":
		r, rest, err := repoFlags(st, fs, args)
		if err != nil {
			return err
		}
		if len(rest) < 2 {
			return fmt.Errorf("sub: name the parent and its sub-issues")
		}
		var nums []int
		for _, a := range rest {
			n, err := strconv.Atoi(strings.TrimPrefix(a, "#"))
			if err != nil {
				return fmt.Errorf("sub: %q is not an issue number", a)
			}
			nums = append(nums, n)
		}
		for _, c := range nums[1:] {
			if err := r.AddSubIssue(nums[0], c); err != nil {
				return err
			}
		}
		return nil
	case "pr":
		head := fs.String("head", "", "")
		base := fs.String("base", "", "")
		title := fs.String("title", "", "")
		body := fs.String("body", "", "")
		draft := fs.Bool("draft", false, "")
		r, _, err := repoFlags(st, fs, args)
		if err != nil {
			return err
		}
		if _, ok := branchSHA(r, *head); !ok {
			return fmt.Errorf("pr: branch %q is not on origin %s", *head, r.Origin)
		}
		p := &Pull{Number: r.Next, Title: *title, Body: *body, Head: *head, Base: *base, Draft: *draft, State: "open"}
		r.Next++
		r.Pulls = append(r.Pulls, p)
		fmt.Fprintln(stdout, p.Number)
		return nil
	case "dump":
		r, rest, err := repoFlags(st, fs, args)
		if err != nil {
			return err
		}
		if len(rest) != 1 {
			return fmt.Errorf("dump: say what: pulls, stacks, issues, comments or runs")
		}
		var v any
		switch rest[0] {
		case "pulls":
			v = nonNil(r.Pulls)
		case "stacks":
			v = nonNil(r.Stacks)
		case "issues":
			v = nonNil(r.Issues)
		case "comments":
			v = nonNil(r.Comments)
		case "runs":
			v = nonNil(r.Runs)
		default:
			return fmt.Errorf("dump: unknown %q: pulls, stacks, issues, comments or runs", rest[0])
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	case "fail":
		status := fs.Int("status", http.StatusInternalServerError, "")
		times := fs.Int("times", 1, "")
		retryAfter := fs.Int("retry-after", 0, "")
		pos, err := parse(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 2 || !strings.HasPrefix(pos[1], "/") {
			return fmt.Errorf("fail: name the method and the path, as in fail POST /repos/acme/app/stacks")
		}
		if *status < 400 || *status > 599 || *times < 1 {
			return fmt.Errorf("fail: --status must be 400 to 599 and --times at least 1")
		}
		st.Faults = append(st.Faults, Fault{Method: strings.ToUpper(pos[0]), Path: pos[1], Status: *status, Times: *times, RetryAfter: *retryAfter})
		return nil
	case "secret":
		r, rest, err := repoFlags(st, fs, args)
		if err != nil {
			return err
		}
		if len(rest) != 2 || rest[0] == "" {
			return fmt.Errorf("secret: name the secret and its value, as in secret acme/app ANTHROPIC_API_KEY k")
		}
		if r.Secrets == nil {
			r.Secrets = map[string]string{}
		}
		r.Secrets[rest[0]] = rest[1]
		return nil
	case "runner":
		fail := fs.Bool("fail", false, "")
		hang := fs.Bool("hang", false, "")
		queue := fs.Bool("queue", false, "")
		delay := fs.Duration("delay", 0, "")
		times := fs.Int("times", 1, "")
		timeout := fs.Duration("timeout", 0, "")
		r, rest, err := repoFlags(st, fs, args)
		if err != nil {
			return err
		}
		if len(rest) != 0 || *times < 1 || *delay < 0 || *timeout < 0 {
			return fmt.Errorf("runner: takes OWNER/NAME and flags; --times at least 1, --delay and --timeout not negative")
		}
		outcome, n := OutcomeRun, 0
		for _, o := range []struct {
			set  bool
			name string
		}{{*fail, OutcomeFail}, {*hang, OutcomeHang}, {*queue, OutcomeQueue}} {
			if o.set {
				outcome, n = o.name, n+1
			}
		}
		if n > 1 {
			return fmt.Errorf("runner: --fail, --hang and --queue exclude each other")
		}
		if *timeout > 0 {
			st.RunnerTimeout = timeout.String()
		}
		if outcome == OutcomeRun && *delay == 0 {
			return nil // only the timeout was set
		}
		for range *times {
			step := RunnerStep{Outcome: outcome}
			if *delay > 0 {
				step.Delay = delay.String()
			}
			r.RunnerPlan = append(r.RunnerPlan, step)
		}
		return nil
	case "log":
		writes := fs.Bool("writes", false, "")
		clear := fs.Bool("clear", false, "")
		if _, err := parse(fs, args); err != nil {
			return err
		}
		for _, r := range st.Log {
			if *writes && r.Method == http.MethodGet {
				continue
			}
			fmt.Fprintf(stdout, "%s %s %d\n", r.Method, r.Path, r.Status)
		}
		if *clear {
			st.Log = nil
		}
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// runCommand serves st on a loopback port while argv runs, with
// GH_SPECSTACK_API_URL pointing at it and every proxy variable pointing
// at a port nobody listens on, loopback excepted; it returns argv's exit
// code.
func runCommand(st *State, argv []string, stdout, stderr io.Writer) (int, error) {
	want, hang := -1, false
	for len(argv) > 0 && (argv[0] == "--hang" || argv[0] == "--exit") {
		if argv[0] == "--hang" {
			hang, argv = true, argv[1:]
			continue
		}
		if len(argv) < 2 {
			return 2, fmt.Errorf("run: --exit needs an exit code")
		}
		n, err := strconv.Atoi(argv[1])
		if err != nil || n < 0 {
			return 2, fmt.Errorf("run: --exit %q is not an exit code", argv[1])
		}
		want, argv = n, argv[2:]
	}
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	srv := NewServer(st)
	var h http.Handler = srv
	if hang {
		h = nil
	}
	code, err := serve(h, argv, stdout, stderr)
	// Runs the command dispatched finish (or, told to hang, stay as they
	// are) before the state is saved.
	srv.Close()
	if err != nil || want < 0 {
		return code, err
	}
	if code != want {
		return 1, fmt.Errorf("run: %s exited %d, want %d", argv[0], code, want)
	}
	return 0, nil
}

// serve runs argv while h serves on a loopback port; a nil h accepts
// every connection and never answers (a hung server).
func serve(h http.Handler, argv []string, stdout, stderr io.Writer) (int, error) {
	if len(argv) == 0 {
		return 2, fmt.Errorf("run: name a command: fakegh run -- COMMAND ARGS")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1, fmt.Errorf("listen: %w", err)
	}
	var stop func()
	if h == nil {
		stop = hangOn(ln)
	} else {
		srv := &http.Server{Handler: h}
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = srv.Serve(ln)
		}()
		stop = func() {
			_ = srv.Shutdown(context.Background())
			<-done
		}
	}
	env := []string{
		"GH_SPECSTACK_API_URL=http://" + ln.Addr().String() + "/",
		"HTTPS_PROXY=" + RefusingProxy, "HTTP_PROXY=" + RefusingProxy, "ALL_PROXY=" + RefusingProxy,
		"https_proxy=" + RefusingProxy, "http_proxy=" + RefusingProxy, "all_proxy=" + RefusingProxy,
		// Loopback stays direct for clients that proxy it (Claude Code,
		// Codex): the fake model of internal/fakemodel listens there too.
		"NO_PROXY=" + LoopbackNoProxy, "no_proxy=" + LoopbackNoProxy,
		"GH_NO_UPDATE_NOTIFIER=1", "GH_NO_EXTENSION_UPDATE_NOTIFIER=1", "GH_PROMPT_DISABLED=1",
	}
	runErr := xec.Run(context.Background(), xec.Cmd{Name: argv[0], Args: argv[1:], Env: env, Stdin: os.Stdin, Stdout: stdout, Stderr: stderr})
	stop()
	if runErr == nil {
		return 0, nil
	}
	if code := xec.ExitCode(runErr); code >= 0 {
		return code, nil
	}
	var xe *xec.Error
	if errors.As(runErr, &xe) {
		return 1, fmt.Errorf("run %s: %v", argv[0], xe.Err)
	}
	return 1, runErr
}

// hangOn accepts every connection on ln and holds it open without
// reading or answering, until the returned stop closes them all.
func hangOn(ln net.Listener) (stop func()) {
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
}
