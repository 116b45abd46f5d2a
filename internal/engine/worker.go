package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/specstack/specstack/internal/agent"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/internal/xec"
)

// Worker roles, passed as SPECSTACK_ROLE.
const (
	RoleImplementer = "implementer"
	RoleFixer       = "fixer"
	RoleReviewer    = "reviewer"
	RoleAuthor      = "author"   // jj-openspec propose/new/ff
	RoleExplorer    = "explorer" // jj-openspec explore
	RoleGraph       = "graph"    // gh-specstack's prior work: which tickets it already finishes
)

// Job is one run of a worker command.
type Job struct {
	Command string // trusted configuration, run by sh -c
	Dir     string // the workspace
	Role    string
	Task    string // task number(s), comma-separated for reviewers
	Brief   string
	Report  string
	// Findings is where a reviewer writes findings, or what a fixer reads.
	Findings    string
	Diff        string // reviewer: the diff to review
	PriorWaves  string // wave 2 and later
	Log         string // stdout and stderr go here (appended)
	PIDFile     string // the worker's process group id is written here
	Timeout     time.Duration
	Environment []string // extra variables
	// Allow lists shell commands an agent preset may run on top of the
	// preset's own (the plan's or the ticket's test commands).
	Allow []string
	// Answer and Schema, for an agent preset: the structured answer the
	// agent gives (validated by Schema) is written to Answer. A reviewer
	// without them answers specstack's findings into Findings.
	Answer string
	Schema *agent.Schema
	// Session is where an agent preset's session is recorded, for the
	// fixer that continues it (default: beside the report).
	Session string
}

// Preset returns the agent preset the job's command names, when it names
// one and the role is one an agent takes (never a test or tracker
// command, which stay shell commands whatever they are called).
func (j Job) Preset() (agent.Preset, bool) {
	switch j.Role {
	case RoleImplementer, RoleFixer, RoleReviewer, RoleAuthor, RoleExplorer, RoleGraph:
		return agent.Lookup(j.Command)
	}
	return agent.Preset{}, false
}

// NeedWorker refuses a worker run without a worker command (exit 2),
// naming the flag and the setting that give one, and one whose program
// is missing (exit 7, checkProgram; relative paths against root,
// the repository the workspaces copy). A command of only blanks is none:
// sh -c would run nothing and end with status 0. Every verb that starts a
// worker (kaisen run, apply, propose, relay, explore, gh specstack run)
// refuses with it, before anything is provisioned.
func NeedWorker(command, root string) error {
	if strings.TrimSpace(command) == "" {
		return exitcode.New(exitcode.Usage, "no worker command: pass --worker CMD (or a preset: %s) or set [worker] command in specstack.toml", strings.Join(agent.Names(), ", "))
	}
	return needProgram(command, root, "worker command", "--worker (or [worker] command in specstack.toml)")
}

// needProgram refuses (exit 7) a command of role, given by setting,
// whose program is missing: a preset's agent (agent.Check), else the
// program the command line starts (checkProgram).
func needProgram(command, root, role, setting string) error {
	if p, ok := agent.Lookup(command); ok {
		if err := agent.Check(p, root); err != nil {
			return exitcode.Wrap(exitcode.Missing, err)
		}
		return nil
	}
	return checkProgram(command, root, role, setting)
}

// NeedReviewer refuses a reviewer command whose program is missing (exit
// 7), as NeedWorker refuses a worker's, before anything is provisioned:
// otherwise the workers run and the run halts at the review with "exited
// 127". No reviewer ("") is no check.
func NeedReviewer(command, root string) error {
	if strings.TrimSpace(command) == "" {
		return nil
	}
	return needProgram(command, root, "reviewer command", "--reviewer (or [worker] reviewer in specstack.toml)")
}

// Result is how a worker process ended.
type Result struct {
	ExitCode int // -1 when killed or never started
	TimedOut bool
	Err      error
	Digest   string // sha256 of what it printed (stdout and stderr, as interleaved)
	// Agent is what an agent preset said it spent; nil for a command.
	Agent *agent.Usage
	// Notes say what the agent layer did (a retry, a fresh session).
	Notes []string
	// Remote: the job ran on an executor's runner, and Err, when set,
	// says what became of the run (the exit code is the run's verdict).
	Remote bool
}

// digestWriter hashes what the process prints on its way to the log;
// stdout and stderr are copied by two goroutines, hence the lock.
type digestWriter struct {
	mu sync.Mutex
	w  io.Writer
	h  hash.Hash
}

func (d *digestWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.h.Write(p)
	return d.w.Write(p)
}

// Env is the variables the worker gets on top of the environment it
// inherits: the SPECSTACK_* protocol variables naming its inputs and
// outputs, then the job's extra ones. Driver mode starts the worker with
// exactly these; step mode prints them for whoever starts it.
func (j Job) Env() []string {
	env := []string{
		"SPECSTACK_WORKSPACE=" + j.Dir,
		"SPECSTACK_BRIEF=" + j.Brief,
		"SPECSTACK_REPORT=" + j.Report,
		"SPECSTACK_TASK=" + j.Task,
		"SPECSTACK_ROLE=" + j.Role,
		"SPECSTACK_FINDINGS=" + j.Findings,
		"SPECSTACK_PIDFILE=" + j.PIDFile,
	}
	if j.Diff != "" {
		env = append(env, "SPECSTACK_DIFF="+j.Diff)
	}
	if j.PriorWaves != "" {
		env = append(env, "SPECSTACK_PRIOR_WAVES="+j.PriorWaves)
	}
	return append(env, j.Environment...)
}

// Argv is the process the job starts: the configured command run by
// sh -c, after the shell records its process group in PIDFile. It is nil
// when no command is configured (step mode, where an agent starts its
// own worker).
func (j Job) Argv() []string {
	if j.Command == "" {
		return nil
	}
	script := j.Command
	if j.PIDFile != "" {
		// The shell is the process group leader (Setpgid): its pid names
		// the group, so a resumed run can stop a worker a killed run left.
		script = `echo $$ > "$SPECSTACK_PIDFILE"` + "\n" + script
	}
	return []string{"sh", "-c", script}
}

// JobSpec is a job as step mode prints it (`fan-out --json`): start Argv
// in Dir with Env added to the environment, stdin closed, output appended
// to Log, killed after Timeout (none when empty). It is exactly what the
// driver would have run.
type JobSpec struct {
	Argv    []string          `json:"argv"`
	Dir     string            `json:"dir"`
	Env     map[string]string `json:"env"`
	Log     string            `json:"log"`
	Timeout string            `json:"timeout,omitempty"`
	// Stdin, for an agent preset, is the file to feed the agent on its
	// standard input: its prompt, with the brief inline.
	Stdin string `json:"stdin,omitempty"`
	// Agent names the preset; after the agent ends, its final message is
	// the report (ending with its "Status:" line), or for a reviewer its
	// structured answer is the findings file.
	Agent string `json:"agent,omitempty"`
}

// Spec renders the job for step mode.
func (j Job) Spec() JobSpec {
	s := JobSpec{Argv: j.Argv(), Dir: j.Dir, Env: map[string]string{}, Log: j.Log}
	if p, ok := j.Preset(); ok {
		// The prompt is written now, so the argv can be started as is.
		if inv, err := j.agentJob(p, io.Discard).Start(); err == nil {
			s.Argv, s.Stdin, s.Agent = inv.Argv, inv.Stdin, p.Name
			for _, kv := range inv.Env {
				k, v, _ := strings.Cut(kv, "=")
				s.Env[k] = v
			}
		}
	}
	for _, kv := range j.Env() {
		k, v, _ := strings.Cut(kv, "=")
		s.Env[k] = v
	}
	if j.Timeout > 0 {
		s.Timeout = j.Timeout.String()
	}
	return s
}

// RunJob runs the job: Argv in Dir with Env, stdin closed, in its own
// process group (so a timeout or cancellation kills everything it
// started). Untrusted text (task text, findings) reaches the worker only
// through the files Env names.
func RunJob(ctx context.Context, j Job) Result {
	if j.PIDFile != "" {
		// What a killed run left running for this job (a reviewer, the
		// test suite) would race this one over the same files.
		StopOrphan(j.PIDFile)
	}
	if p, ok := j.Preset(); ok {
		return runAgent(ctx, j, p)
	}
	argv := j.Argv()
	if argv == nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("%s job for task %s: no command configured", j.Role, j.Task)}
	}
	log, out, err := j.startLog("")
	if err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	defer log.Close()
	err = xec.Run(ctx, xec.Cmd{
		Name: argv[0], Args: argv[1:], Dir: j.Dir, Env: j.Env(),
		Stdout: out, Stderr: out, Timeout: j.Timeout, Setpgid: true,
	})
	if j.PIDFile != "" {
		os.Remove(j.PIDFile)
	}
	res := Result{ExitCode: 0, Digest: hex.EncodeToString(out.h.Sum(nil))}
	if err != nil {
		res.ExitCode = xec.ExitCode(err)
		res.Err = err
		res.TimedOut = errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
	}
	fmt.Fprintf(log, "== exit %d\n", res.ExitCode)
	return res
}

// startLog opens the job's log for appending, heads it with the job (and
// what runs it, when said), and returns the writer that also digests what
// the worker prints.
func (j Job) startLog(what string) (*os.File, *digestWriter, error) {
	if err := os.MkdirAll(filepath.Dir(j.Log), 0o755); err != nil {
		return nil, nil, fmt.Errorf("worker log %s: %w", j.Log, err)
	}
	log, err := openLog(j.Log)
	if err != nil {
		return nil, nil, fmt.Errorf("worker log %s: %w", j.Log, err)
	}
	fmt.Fprintf(log, "== %s %s%s task %s at %s\n", time.Now().UTC().Format(time.RFC3339), j.Role, what, j.Task, j.Dir)
	return log, &digestWriter{w: log, h: sha256.New()}, nil
}

// openLog opens a worker's log for appending. The log is specstack's own
// file in the artifacts folder, which workers can write: whatever a
// worker that ran before left at its path instead of a regular file (a
// link, a FIFO that would block the open forever) is removed, never
// followed or waited on.
func openLog(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove %s a worker left where the log goes: %w", regfile.Kind(fi.Mode()), err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &regfile.Error{Path: path, Mode: fi.Mode()}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// StopOrphan kills the process group recorded in pidFile, if it still
// runs: a worker started by a run that was killed.
//
// The file is in the artifacts folder, which workers (and what they
// leave running) can write: anything but a regular file there (a FIFO
// that would block the read forever, a link) is removed unread.
func StopOrphan(pidFile string) bool {
	data, err := regfile.ReadNoFollow(pidFile)
	os.Remove(pidFile)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		return false
	}
	// The number alone may name a group that is no worker's any more (the
	// pid reused since, or written there by something else): only a group
	// still holding a process started for this pid file is killed.
	if !workerGroup(pid, pidFile) {
		return false
	}
	return syscall.Kill(-pid, syscall.SIGKILL) == nil
}

// agentJob is the job as the agent layer runs it: the job's files are its
// inputs, the report (or for a reviewer the findings file) its output,
// and its session recorded beside the report, where the task's fixer
// finds it.
func (j Job) agentJob(p agent.Preset, log io.Writer) agent.Job {
	aj := agent.Job{Preset: p, Role: j.Role, Dir: j.Dir,
		Inputs: agent.Inputs{Brief: j.Brief, PriorWaves: j.PriorWaves, Report: j.Report},
		Report: j.Report, Stem: strings.TrimSuffix(j.Log, ".log"), Allow: j.Allow, Env: j.Env(),
		Log: log, Timeout: j.Timeout, PIDFile: j.PIDFile}
	switch j.Role {
	case RoleReviewer:
		aj.Inputs.Diff, aj.Answer, aj.Schema = j.Diff, j.Findings, agent.Findings
	case RoleFixer:
		aj.Inputs.Findings = j.Findings
	}
	if j.Schema != nil {
		aj.Answer, aj.Schema = j.Answer, j.Schema
	}
	switch {
	case j.Session != "":
		aj.Session = j.Session
	case j.Report != "" && j.Role != RoleReviewer:
		aj.Session = j.Report + ".session.json"
	}
	return aj
}

// runAgent runs the job through its agent preset, with the log and the
// digest of what it printed kept as for any worker.
func runAgent(ctx context.Context, j Job, p agent.Preset) Result {
	log, out, err := j.startLog(" (" + p.Name + ")")
	if err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	defer log.Close()
	ar := agent.Run(ctx, j.agentJob(p, out))
	if j.PIDFile != "" {
		os.Remove(j.PIDFile)
	}
	usage := ar.Usage
	res := Result{ExitCode: ar.ExitCode, Err: ar.Err, TimedOut: ar.TimedOut, Digest: hex.EncodeToString(out.h.Sum(nil)),
		Agent: &usage, Notes: ar.Notes}
	fmt.Fprintf(log, "== exit %d\n", res.ExitCode)
	if ar.Err != nil {
		fmt.Fprintf(log, "== specstack: %v\n", ar.Err)
	}
	return res
}
