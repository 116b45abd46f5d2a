package kaisencli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plan"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/jjx"
)

// binary names jj-kaisen's ledger directory.
const binary = "jj-kaisen"

// session is what every run command needs: the orchestrating workspace,
// its ledger directory and the configuration.
type session struct {
	repo *jjx.Repo
	dir  string
	cfg  *config.Config
}

func openSession(c *cli.Context) (*session, error) {
	root, ledger, err := findWorkspace(c)
	if err != nil {
		return nil, err
	}
	bin, _, err := jjx.Find(c.Context)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(root)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return &session{repo: &jjx.Repo{Root: root, Bin: bin}, dir: ledger, cfg: cfg}, nil
}

// findWorkspace finds the jj workspace and its ledger directory from the
// file system alone (internal/repo), running no process: status, which
// agents poll, needs nothing more. The root is resolved through symlinks,
// as `jj workspace root` prints it.
func findWorkspace(c *cli.Context) (root, ledger string, err error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return "", "", exitcode.Wrap(exitcode.Usage, err)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rp, err := repo.Find(dir)
	if err != nil {
		return "", "", exitcode.Wrap(exitcode.Missing, err)
	}
	if !rp.IsJJ() {
		return "", "", exitcode.New(exitcode.Missing, "%s is not a jj workspace: jj-kaisen runs tasks in jj workspaces (run `jj git init --colocate` in a git repository)", rp.Root)
	}
	return rp.Root, rp.LedgerDir(binary), nil
}

// openRunner opens the session and its current run, the ledger locked.
func openRunner(c *cli.Context) (*engine.Runner, error) {
	s, err := openSession(c)
	if err != nil {
		return nil, err
	}
	return s.open(c)
}

// open locks the ledger and loads the current run, applying command
// overrides from the flags when present.
func (s *session) open(c *cli.Context) (*engine.Runner, error) {
	r, err := engine.Open(c.Context, s.repo, s.dir, cliapp.Stderr(c))
	if err != nil {
		return nil, err
	}
	if err := showProgress(c, s.cfg, r); err != nil {
		r.Close()
		return nil, err
	}
	// Empty when the command has no such flag or it was not given.
	r.Worker, r.Reviewer, r.Test = c.String("worker"), c.String("reviewer"), c.String("test")
	r.ConfidenceOverride = c.String("confidence-override")
	if r.MaxCost, err = cliapp.MaxCost(c, 0); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// runFlags are the settings of a new run (run and start).
func runFlags() []cli.Flag {
	return []cli.Flag{
		taskFlag,
		&cli.StringFlag{Name: "worker", Usage: "implementer and fixer: an agent preset (claude, codex) or a `CMD` run by sh -c in each task's workspace (default: [worker] command)"},
		&cli.StringFlag{Name: "reviewer", Usage: "reviewer: an agent preset (claude, codex) or a `CMD` writing findings to $SPECSTACK_FINDINGS (default: [worker] reviewer)"},
		&cli.StringFlag{Name: "test", Usage: "full test `CMD`: per task in its workspace (unless [kaisen] test-map is set) and once in @ at the end (default: [worker] test)"},
		&cli.IntFlag{Name: "max-parallel", Usage: "at most `N` workers at once (default: all tasks of a wave, or [kaisen] max-parallel)"},
		&cli.StringFlag{Name: "only", Usage: "run only these tasks of the plan, a `LIST` such as 3 or 2,5 (to try again the tasks a finished run did not merge)"},
		&cli.StringFlag{Name: "merge-order", Value: "auto", Usage: "fan-in order: auto (smallest diff first) or a task `LIST` such as 3,1,2"},
		&cli.BoolFlag{Name: "skip-review", Usage: "skip tests and review per wave: collected tasks go straight to fan-in"},
		&cli.StringFlag{Name: "timeout", Usage: "per-worker `DURATION` such as 30m (default: [worker] timeout, else 1h)"},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "accept a wave plan with overlaps, low parallelism or pre-flight findings (a heading that is not a task, a task naming no files)"},
		&cli.BoolFlag{Name: "fresh", Usage: "start over although an unfinished run is in the ledger (its workspaces are kept)"},
		confidenceOverrideFlag,
		maxCostFlag,
		heartbeatFlag,
		executorFlag,
	}
}

var maxCostFlag = cliapp.MaxCostFlag("the run halts (exit 9) and resume --max-cost with more goes on")

var confidenceOverrideFlag = &cli.StringFlag{Name: "confidence-override", Usage: "pass a review whose confidence is below [review] min-confidence anyway, recording `REASON` in the ledger"}

// overrideFlags let resume and step commands replace the recorded commands.
func overrideFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "worker", Usage: "use this implementer/fixer `CMD` instead of the recorded one"},
		&cli.StringFlag{Name: "reviewer", Usage: "use this reviewer `CMD` instead of the recorded one"},
		&cli.StringFlag{Name: "test", Usage: "use this test `CMD` instead of the recorded one"},
		confidenceOverrideFlag,
		maxCostFlag,
	}
}

// options builds the run's options from flags over configuration.
func (s *session) options(c *cli.Context, tasks []engine.Task) (engine.Options, error) {
	o := engine.Options{
		Worker:        pick(c.String("worker"), s.cfg.Worker.Command),
		Reviewer:      pick(c.String("reviewer"), s.cfg.Worker.Reviewer),
		Test:          pick(c.String("test"), s.cfg.Worker.Test),
		TestMap:       s.cfg.Kaisen.TestMap,
		MaxParallel:   s.cfg.Kaisen.MaxParallel,
		SkipReview:    c.Bool("skip-review"),
		Timeout:       pick(c.String("timeout"), s.cfg.Worker.Timeout),
		MinConfidence: s.cfg.Review.MinConfidence,
		// Fixed at start, so resume provisions where the run began.
		WorkspacesDir: config.WorkspacesDir(s.cfg, s.repo.Root),
	}
	var err error
	if o.MaxCost, err = cliapp.MaxCost(c, s.cfg.Worker.MaxCost); err != nil {
		return o, err
	}
	if o.MinConfidence < 0 || o.MinConfidence > 100 {
		return o, exitcode.New(exitcode.Usage, "[review] min-confidence %d in %s: give a score from 0 to 100", o.MinConfidence, strings.Join(s.cfg.Files, ", "))
	}
	if c.IsSet("max-parallel") {
		o.MaxParallel = c.Int("max-parallel")
	}
	if o.MaxParallel < 0 {
		return o, exitcode.New(exitcode.Usage, "--max-parallel %d: give a positive number", o.MaxParallel)
	}
	if o.Timeout != "" {
		if d, err := time.ParseDuration(o.Timeout); err != nil || d <= 0 {
			return o, exitcode.New(exitcode.Usage, "timeout %q: give a positive Go duration such as 30m", o.Timeout)
		}
	}
	if o.Executor, err = executorOption(c, s.cfg); err != nil {
		return o, err
	}
	if o.Executor != "" && s.cfg.Executor.MaxParallel > 0 && !c.IsSet("max-parallel") {
		o.MaxParallel = s.cfg.Executor.MaxParallel
	}
	mo, err := parseMergeOrder(c.String("merge-order"), tasks)
	if err != nil {
		return o, err
	}
	o.MergeOrder = mo
	return o, nil
}

func parseMergeOrder(v string, tasks []engine.Task) ([]int, error) {
	if v == "" || v == "auto" {
		return nil, nil
	}
	known := map[int]bool{}
	for _, t := range tasks {
		known[t.Num] = true
	}
	return taskList("merge-order", v, known, "give auto or task numbers such as 3,1,2")
}

// taskList reads v, the value of --flag, as a list of task numbers such
// as 3,1,2, each one of known, none twice.
func taskList(flag, v string, known map[int]bool, hint string) ([]int, error) {
	var res []int
	seen := map[int]bool{}
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || !known[n] {
			return nil, exitcode.New(exitcode.Usage, "--%s %q: %q is not a task of the plan (%s)", flag, v, f, hint)
		}
		if seen[n] {
			return nil, exitcode.New(exitcode.Usage, "--%s %q: task %d is listed twice", flag, v, n)
		}
		seen[n] = true
		res = append(res, n)
	}
	return res, nil
}

// onlyTasks is p with only the tasks --only names (v), in the plan's
// order: a new run of some of a plan's tasks, such as those a finished
// run did not merge.
func onlyTasks(p *plan.Plan, v string) (*plan.Plan, error) {
	known := map[int]bool{}
	for _, t := range p.Tasks {
		known[t.Number] = true
	}
	nums, err := taskList("only", v, known, "give task numbers of the plan such as 3 or 2,5")
	if err != nil {
		return nil, err
	}
	return p.Only(nums), nil
}

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var heartbeatFlag = &cli.StringFlag{Name: "heartbeat", Usage: "when progress goes to a pipe, name the running workers every `DURATION` (default: [kaisen] heartbeat, else 30s; 0s: never)"}

// showProgress routes r's progress through an engine.Progress: live
// status lines on a terminal (coloured status words unless NO_COLOR is
// set), a heartbeat line elsewhere.
func showProgress(c *cli.Context, cfg *config.Config, r *engine.Runner) error {
	every, err := heartbeat(c, cfg)
	if err != nil {
		return err
	}
	term := cliapp.StderrIsTerminal(c)
	p := &engine.Progress{Out: cliapp.Stderr(c), Terminal: term, Heartbeat: every,
		Color: term && os.Getenv("NO_COLOR") == ""}
	r.Out, r.Progress = p, p
	return nil
}

func wave(c *cli.Context) (int, error) {
	w := c.Int("wave")
	if w <= 0 {
		return 0, exitcode.New(exitcode.Usage, "--wave N is required (a wave number from 1)")
	}
	return w, nil
}

// heartbeat is --heartbeat, else [kaisen] heartbeat, else the default.
func heartbeat(c *cli.Context, cfg *config.Config) (time.Duration, error) {
	v := pick(c.String("heartbeat"), cfg.Kaisen.Heartbeat)
	if v == "" {
		return engine.DefaultHeartbeat, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, exitcode.New(exitcode.Usage, "heartbeat %q: give a Go duration such as 30s (0s: none)", v)
	}
	return d, nil
}

// drive runs r in driver mode with its progress shown.
func drive(c *cli.Context, r *engine.Runner) error {
	if r.Progress != nil {
		r.Progress.Begin()
		defer r.Progress.End()
	}
	return r.Drive(c.Context)
}
