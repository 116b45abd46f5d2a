package stackcli

import (
	"github.com/specstack/specstack/internal/actionsworker"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/stack"
	"github.com/specstack/specstack/stack/ghapi"
)

func commands() []*cli.Command {
	return []*cli.Command{planCommand(), recipesCommand(), linkCommand(), pushCommand(), prCommand(), runCommand(), statusCommand(), resumeCommand(), abortCommand(), actionsworker.Command(), executorCommand(), installCommand()}
}

var (
	humanLabelFlag = &cli.StringFlag{Name: "human-label", Usage: "label of tickets that need a person (default: config stack.human-label, else \"" + stack.DefaultHumanLabel + "\")"}
	stackModeFlag  = &cli.StringFlag{Name: "stack-mode", Usage: "native (a GitHub stack) or chain (a plain --base chain); default: config stack.stack-mode, else native when the repository has stacks enabled"}
)

// specArg reads the spec issue: 12, #12 or an issue URL.
func specArg(c *cli.Context) (int, error) {
	args, err := cliapp.Args(c)
	if err != nil {
		return 0, err
	}
	if len(args) != 1 {
		return 0, exitcode.New(exitcode.Usage, "%s: name one spec issue (a number, #N or its URL)", c.Command.Name)
	}
	s := args[0]
	if i := strings.LastIndex(s, "/issues/"); i >= 0 {
		s = s[i+len("/issues/"):]
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(s, "/"), "#"))
	if err != nil || n <= 0 {
		return 0, exitcode.New(exitcode.Usage, "%s: %q is not an issue number", c.Command.Name, args[0])
	}
	return n, nil
}

// settings merges flags over the configuration files of the repository.
type settings struct {
	humanLabel, stackMode string
	timeout               time.Duration // each GitHub request's limit
	cfg                   *config.Config
	root                  string // the repository's root, "" outside one
}

func loadSettings(c *cli.Context, dir string) (settings, error) {
	root := ""
	if r, err := repo.Find(dir); err == nil {
		root = r.Root
	}
	cfg, err := config.Load(root)
	if err != nil {
		return settings{}, exitcode.Wrap(exitcode.Usage, err)
	}
	timeout, err := ghapi.RequestTimeout(cfg.GitHub.Timeout)
	if err != nil {
		return settings{}, githubExit(err)
	}
	s := settings{humanLabel: cfg.Stack.HumanLabel, stackMode: cfg.Stack.StackMode, timeout: timeout, cfg: cfg, root: root}
	if c.IsSet("human-label") {
		s.humanLabel = c.String("human-label")
	}
	if c.IsSet("stack-mode") {
		s.stackMode = c.String("stack-mode")
	}
	return s, nil
}

func connect(c *cli.Context) (*stack.Env, settings, error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return nil, settings{}, exitcode.Wrap(exitcode.Usage, err)
	}
	s, err := loadSettings(c, dir)
	if err != nil {
		return nil, s, err
	}
	env, err := stack.Connect(c.Context, dir, stack.ConnectOptions{Timeout: s.timeout})
	return env, s, githubExit(err)
}

// ledgerDir is gh-specstack's ledger directory of the repository.
func ledgerDir(c *cli.Context) (string, error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return "", exitcode.Wrap(exitcode.Usage, err)
	}
	r, err := repo.Find(dir)
	if err != nil {
		return "", exitcode.Wrap(exitcode.Missing, err)
	}
	return r.LedgerDir("gh-specstack"), nil
}
