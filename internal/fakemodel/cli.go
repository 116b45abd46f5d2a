package fakemodel

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/xec"
)

// LogEnv and StateEnv name the request log and the failure-count state
// file; the defaults are $HOME/.fakemodel.log and $HOME/.fakemodel-state.json.
const (
	LogEnv   = "FAKEMODEL_LOG"
	StateEnv = "FAKEMODEL_STATE"
)

// DummyKey is the API key `fakemodel run` gives the agents.
const DummyKey = "fakemodel-dummy-key"

// CodexProviderEnv names the variable `fakemodel run` sets to the base URL
// Codex must be given as its model provider ("http://127.0.0.1:PORT/v1"):
// Codex reads no base-URL variable itself (see CodexArgs).
const CodexProviderEnv = "SPECSTACK_CODEX_PROVIDER_URL"

// CodexArgs returns the codex arguments (before the subcommand) that send
// its model requests to base ("http://127.0.0.1:PORT/v1") with the key in
// OPENAI_API_KEY, over the Responses API.
func CodexArgs(base string) []string {
	return []string{
		"-c", "model_provider=fakemodel",
		"-c", fmt.Sprintf(`model_providers.fakemodel={name="fakemodel", base_url=%q, env_key="OPENAI_API_KEY", wire_api="responses"}`, base),
	}
}

const usage = `usage: fakemodel COMMAND ...   (log in $FAKEMODEL_LOG, default $HOME/.fakemodel.log;
                               failure counts in $FAKEMODEL_STATE, default $HOME/.fakemodel-state.json)
  run SCENARIO -- COMMAND ARGS...   serve SCENARIO while COMMAND runs with the agents' base
                                    URLs and dummy API keys pointing at it; exit with its code
  serve SCENARIO                    serve in the foreground; prints the URL, stops on a signal
  log [--json]                      the requests served, one a line (--json: the full entries)`

// Main is the fakemodel command.
func Main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	logPath, statePath, err := paths()
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel: %v\n", err)
		return 1
	}
	switch args[0] {
	case "run", "serve":
		if len(args) < 2 {
			fmt.Fprintf(stderr, "fakemodel: %s: name the scenario file\n%s\n", args[0], usage)
			return 2
		}
		sc, err := LoadScenario(args[1])
		if err != nil {
			fmt.Fprintf(stderr, "fakemodel: %v\n", err)
			return 2
		}
		srv := NewServer(sc, logPath, statePath)
		if args[0] == "serve" {
			err = serveForeground(srv, stdout)
			if err != nil {
				fmt.Fprintf(stderr, "fakemodel: %v\n", err)
				return 1
			}
			return 0
		}
		argv := args[2:]
		if len(argv) > 0 && argv[0] == "--" {
			argv = argv[1:]
		}
		code, err := Run(srv, argv, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "fakemodel: %v\n", err)
		}
		return code
	case "log":
		fs := flag.NewFlagSet("log", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		asJSON := fs.Bool("json", false, "")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
			fmt.Fprintf(stderr, "fakemodel: log takes only --json\n%s\n", usage)
			return 2
		}
		if err := printLog(logPath, *asJSON, stdout); err != nil {
			fmt.Fprintf(stderr, "fakemodel: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "fakemodel: unknown command %q\n%s\n", args[0], usage)
	return 2
}

func paths() (logPath, statePath string, err error) {
	logPath, statePath = os.Getenv(LogEnv), os.Getenv(StateEnv)
	if logPath != "" && statePath != "" {
		return logPath, statePath, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", "", err
	}
	if logPath == "" {
		logPath = filepath.Join(home, ".fakemodel.log")
	}
	if statePath == "" {
		statePath = filepath.Join(home, ".fakemodel-state.json")
	}
	return logPath, statePath, nil
}

// Env is the environment `fakemodel run` gives its command, for a server
// at base ("http://127.0.0.1:PORT"): both agents' base URLs and dummy
// keys, loopback exempt from any proxy, and the agents' telemetry and
// update checks off.
func Env(base string) []string {
	noProxy := "127.0.0.1,localhost,::1"
	if v := os.Getenv("NO_PROXY"); v != "" {
		noProxy += "," + v
	}
	return []string{
		"FAKEMODEL_URL=" + base,
		"ANTHROPIC_BASE_URL=" + base,
		"ANTHROPIC_API_KEY=" + DummyKey,
		"OPENAI_BASE_URL=" + base + "/v1",
		"OPENAI_API_KEY=" + DummyKey,
		CodexProviderEnv + "=" + base + "/v1",
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy,
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
	}
}

// Listen serves srv on a loopback port until the returned stop is called,
// and returns its base URL.
func Listen(srv http.Handler) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	stop = func() {
		// A hung turn holds its connection until the client goes; give
		// the rest a moment to finish, then cut everything.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			_ = hs.Close()
		}
		<-done
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// Run runs argv while srv serves, with Env in its environment, and returns
// its exit code.
func Run(srv http.Handler, argv []string, stdout, stderr io.Writer) (int, error) {
	if len(argv) == 0 {
		return 2, fmt.Errorf("run: name a command: fakemodel run SCENARIO -- COMMAND ARGS")
	}
	base, stop, err := Listen(srv)
	if err != nil {
		return 1, err
	}
	defer stop()
	err = xec.Run(context.Background(), xec.Cmd{Name: argv[0], Args: argv[1:], Env: Env(base),
		Stdin: os.Stdin, Stdout: stdout, Stderr: stderr})
	if code := xec.ExitCode(err); err == nil || code >= 0 {
		return max(code, 0), nil
	}
	return 1, fmt.Errorf("run %s: %w", argv[0], err)
}

func serveForeground(srv http.Handler, stdout io.Writer) error {
	base, stop, err := Listen(srv)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintln(stdout, base)
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	<-ctx.Done()
	return nil
}

// printLog prints the log: the entries as they are, or one summary line
// each ("POST /v1/messages?beta=true anthropic rule=0 turn=1 200 tool Write").
func printLog(path string, asJSON bool, w io.Writer) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), maxBody+1<<20)
	for sc.Scan() {
		if asJSON {
			fmt.Fprintln(w, sc.Text())
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("read log %s: %w", path, err)
		}
		line := fmt.Sprintf("%s %s", e.Method, e.Path)
		if e.API != "" {
			line += fmt.Sprintf(" %s rule=%d turn=%d", e.API, e.Rule, e.Turn)
		}
		line += fmt.Sprintf(" %d", e.Status)
		if e.Answer != "" {
			line += " " + e.Answer
		}
		fmt.Fprintln(w, strings.TrimSpace(line))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read log %s: %w", path, err)
	}
	return nil
}
