package agent

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
	"sync"
	"time"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/internal/xec"
)

// Job is one agent run as a workflow asks for it.
type Job struct {
	Preset Preset
	Role   string
	Dir    string
	Inputs Inputs
	// Report receives the final message (with its status line); a fixer
	// appends to it. Answer receives a structured answer (a reviewer's
	// findings), validated by Schema.
	Report string
	Answer string
	Schema *Schema
	// Session is specstack's file for the job's agent session: the
	// implementer writes it, its fixer resumes the session it names.
	Session string
	// Stem names specstack's own files for the run: Stem+".prompt.md"
	// and the like, next to the log.
	Stem    string
	Allow   []string
	Env     []string
	Log     io.Writer
	Timeout time.Duration
	PIDFile string
	// Backoff is the first wait before retrying a rate-limited agent
	// (doubled each time); 0 means 2s.
	Backoff time.Duration
}

// Result is how the job ended.
type Result struct {
	ExitCode int
	TimedOut bool
	Err      error
	Usage    Usage
	Denials  []Denial
	Notes    []string // what the layer did that the run should say
}

// Retries bounds the retries of a rate-limited or overloaded agent.
const Retries = 3

// maxStdout bounds what is kept of an agent's stdout for parsing (its log
// keeps everything).
const maxStdout = 64 << 20

// Invocation is one process of a job: what step mode prints and what the
// driver starts.
type Invocation struct {
	Argv        []string
	Stdin       string // the prompt file
	Env         []string
	LastMessage string
	resumed     bool
}

// Invocation builds the process for a first session (resume "") or for
// continuing the session resume, with the prompt in Stem+suffix.
func (j Job) Invocation(prompt, resume, suffix string) (Invocation, error) {
	p := j.Preset
	inv := Invocation{Stdin: j.Stem + suffix + ".prompt.md", Env: append(append([]string{}, p.Env...), j.Env...)}
	if p.Output == OutputCodex {
		inv.LastMessage = j.Stem + suffix + ".last-message.md"
	}
	if err := renameio.WriteFile(inv.Stdin, []byte(prompt), 0o600); err != nil {
		return inv, fmt.Errorf("write the agent's prompt %s: %w", inv.Stdin, err)
	}
	inv.resumed = resume != ""
	schemaFile := ""
	if j.Schema != nil {
		schemaFile = j.Stem + ".schema.json"
		if err := renameio.WriteFile(schemaFile, j.Schema.JSON, 0o644); err != nil {
			return inv, fmt.Errorf("write the answer's schema %s: %w", schemaFile, err)
		}
	}
	all := p.Arguments(j.Role, resume != "", j.Schema != nil, j.Allow)
	argv := []string{p.Program}
	for _, a := range all[1:] {
		switch a {
		case PlaceWorkspace:
			a = j.Dir
		case PlaceSession:
			a = resume
		case PlaceLastMessage:
			a = inv.LastMessage
		case PlaceSchema:
			if j.Schema != nil {
				a = string(j.Schema.JSON)
			}
		case PlaceSchemaFile:
			a = schemaFile
		case PlacePromptFile:
			a = inv.Stdin
		}
		argv = append(argv, a)
	}
	if j.PIDFile != "" {
		// A shell records the process group (it is its leader) and then
		// becomes the agent: the argv stays argv, never a script.
		argv = append([]string{"sh", "-c", `echo $$ > "$SPECSTACK_PIDFILE" && exec "$@"`, "specstack-agent"}, argv...)
	}
	inv.Argv = argv
	return inv, nil
}

// Arguments is the preset's argv for a role, its placeholders left in:
// the program, then the first session's arguments (resume: the resumed
// one's), the answer's schema arguments (schema), the read-only ones for
// a reviewer, the allow list (the preset's own, then each shell command
// of allow as a rule) and the deny list; for Codex, "-" (the prompt on
// stdin) last.
func (p Preset) Arguments(role string, resume, schema bool, allow []string) []string {
	args := p.Args
	if resume {
		args = p.ResumeArgs
	}
	var extra []string
	if schema {
		extra = append(extra, p.ReviewArgs...)
	}
	if role == RoleReviewer {
		extra = append(extra, p.ReadOnlyArgs...)
	}
	if p.AllowFlag != "" {
		rules := append([]string{}, p.Allow...)
		if p.ShellRule != "" {
			for _, c := range allow {
				rules = append(rules, fmt.Sprintf(p.ShellRule, c))
			}
		}
		for _, a := range rules {
			extra = append(extra, p.AllowFlag, a)
		}
	}
	if p.DenyFlag != "" {
		for _, d := range p.Deny {
			extra = append(extra, p.DenyFlag, d)
		}
	}
	all := append(append([]string{p.Program}, args...), extra...)
	// Codex reads the prompt from stdin when it is "-", after the
	// subcommand's own arguments.
	if p.Output == OutputCodex {
		all = append(all, "-")
	}
	return all
}

// Start prepares the job's first process for someone else to start (step
// mode): its prompt file written, its argv and environment.
func (j Job) Start() (Invocation, error) {
	prompt, err := j.Prompt()
	if err != nil {
		return Invocation{}, err
	}
	return j.Invocation(prompt, "", "")
}

// Run runs the job: a first session (or the implementer's session
// resumed, for a fixer), retried while the agent is rate-limited, and
// asked once more when its structured answer does not parse. It writes
// the report or the answer and returns what the agent spent.
func Run(ctx context.Context, j Job) Result {
	var res Result
	res.Usage.Agent = j.Preset.Name
	res.Usage.Version = Version(ctx, j.Preset)
	prompt, err := j.Prompt()
	if err != nil {
		return failed(res, err)
	}
	resume, resumePrompt := "", ""
	if j.Role == RoleFixer && len(j.Preset.ResumeArgs) > 0 {
		if id := readSession(j.Session, j.Preset.Name); id != "" {
			if resumePrompt, err = j.FixPrompt(); err != nil {
				return failed(res, err)
			}
			resume = id
		}
	}
	attempt, asked := 0, false
	for {
		p, suffix := prompt, ""
		if resume != "" {
			p, suffix = resumePrompt, fmt.Sprintf(".resume%d", attempt)
		}
		s, code, perr := j.once(ctx, p, resume, suffix)
		res.Usage.Add(s.Usage)
		res.Denials = append(res.Denials, s.Denials...)
		res.ExitCode = code
		if ctx.Err() != nil {
			res.Err = ctx.Err()
			return res
		}
		var xe *xec.Error
		if errors.As(perr, &xe) && errors.Is(xe.Err, context.DeadlineExceeded) {
			res.TimedOut, res.Err = true, perr
			return res
		}
		switch {
		case resume != "" && sessionGone(s, perr):
			res.Notes = append(res.Notes, fmt.Sprintf("the implementer's %s session %s is gone: started a fresh one with the brief and the findings", j.Preset.Name, resume))
			resume = ""
			continue
		case transient(s, perr) && attempt < Retries:
			wait := j.backoff() << attempt
			attempt++
			res.Notes = append(res.Notes, fmt.Sprintf("%s was rate-limited or overloaded (%s): retry %d of %d in %s", j.Preset.Name, oneLine(errText(s, perr)), attempt, Retries, wait))
			fmt.Fprintf(j.Log, "== specstack: %s\n", res.Notes[len(res.Notes)-1])
			select {
			case <-ctx.Done():
				res.Err = ctx.Err()
				return res
			case <-time.After(wait):
			}
			continue
		}
		if perr != nil || s.IsError || code != 0 {
			res.Err = fmt.Errorf("%s %s failed: %s", j.Preset.Name, j.Role, oneLine(errText(s, perr)))
			if res.ExitCode == 0 {
				res.ExitCode = 1
			}
			return res
		}
		if s.Usage.SessionID != "" && j.Session != "" && j.Role != RoleReviewer {
			if err := writeSession(j.Session, j.Preset.Name, s.Usage.SessionID); err != nil {
				return failed(res, err)
			}
		}
		if j.Schema != nil {
			answer, verr := j.Schema.Validate(s.Answer)
			if verr != nil && !asked && s.Usage.SessionID != "" && len(j.Preset.ResumeArgs) > 0 {
				asked = true
				res.Notes = append(res.Notes, fmt.Sprintf("the %s's answer did not parse (%v): asked once more", j.Role, verr))
				resume = s.Usage.SessionID
				resumePrompt = fmt.Sprintf("Your answer did not match the required JSON schema: %v.\nAnswer again with only the JSON object the schema describes.\n", verr)
				continue
			}
			if verr != nil {
				res.Err = fmt.Errorf("the %s's answer is not what was asked for (%w); see the log", j.Role, verr)
				res.ExitCode = 1
				return res
			}
			if err := renameio.WriteFile(j.Answer, answer, 0o644); err != nil {
				return failed(res, fmt.Errorf("write the %s's answer %s: %w", j.Role, j.Answer, err))
			}
			return res
		}
		if err := j.writeReport(s.Final, res.Denials); err != nil {
			return failed(res, err)
		}
		return res
	}
}

func failed(res Result, err error) Result {
	res.Err = err
	if res.ExitCode == 0 {
		res.ExitCode = -1
	}
	return res
}

func (j Job) backoff() time.Duration {
	if j.Backoff > 0 {
		return j.Backoff
	}
	return 2 * time.Second
}

// once runs one agent process and reads what it said.
func (j Job) once(ctx context.Context, prompt, resume, suffix string) (session, int, error) {
	inv, err := j.Invocation(prompt, resume, suffix)
	if err != nil {
		return session{}, -1, err
	}
	in, err := os.Open(inv.Stdin)
	if err != nil {
		return session{}, -1, fmt.Errorf("open the agent's prompt: %w", err)
	}
	defer in.Close()
	if inv.LastMessage != "" {
		os.Remove(inv.LastMessage)
	}
	var out capped
	fmt.Fprintf(j.Log, "== specstack: %s (the prompt on stdin from %s)\n", strings.Join(inv.Argv, " "), inv.Stdin)
	err = xec.Run(ctx, xec.Cmd{Name: inv.Argv[0], Args: inv.Argv[1:], Dir: j.Dir, Env: inv.Env, Stdin: in,
		Stdout: io.MultiWriter(j.Log, &out), Stderr: j.Log, Timeout: j.Timeout, Setpgid: true})
	code := 0
	if err != nil {
		code = xec.ExitCode(err)
	}
	last := ""
	if inv.LastMessage != "" {
		if data, rerr := regfile.ReadNoFollow(inv.LastMessage); rerr == nil {
			last = string(data)
		}
	}
	var s session
	var perr error
	switch j.Preset.Output {
	case OutputClaude:
		s, perr = parseClaude(out.Bytes())
	case OutputCodex:
		s, perr = parseCodex(out.Bytes(), last)
	default:
		s = parseText(out.Bytes())
	}
	if err != nil {
		var xe *xec.Error
		if errors.As(err, &xe) && s.Error == "" {
			s.Error = strings.TrimSpace(xe.Stderr)
		}
		return s, code, err
	}
	if perr != nil {
		return s, code, fmt.Errorf("its output does not parse: %w", perr)
	}
	s.Usage.Agent = j.Preset.Name
	return s, code, nil
}

// writeReport writes the final message as the report (a fixer appends to
// the implementer's). A denied permission makes the task blocked: the
// last status line wins, and it names what the agent wanted.
func (j Job) writeReport(final string, denials []Denial) error {
	var b strings.Builder
	if j.Role == RoleFixer {
		if old, err := regfile.ReadNoFollow(j.Report); err == nil {
			b.Write(old)
			b.WriteString("\n\n## Fix\n\n")
		}
	}
	b.WriteString(strings.TrimRight(final, "\n") + "\n")
	if len(denials) > 0 {
		b.WriteString("\nThe agent was denied permissions it asked for:\n")
		for _, d := range denials {
			fmt.Fprintf(&b, "- %s\n", d)
		}
		b.WriteString("Status: BLOCKED\n")
	}
	if err := renameio.WriteFile(j.Report, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write the report %s: %w", j.Report, err)
	}
	return nil
}

type sessionFile struct {
	Agent     string `json:"agent"`
	SessionID string `json:"session_id"`
}

func readSession(path, agent string) string {
	if path == "" {
		return ""
	}
	data, err := regfile.ReadNoFollow(path)
	if err != nil {
		return ""
	}
	var s sessionFile
	if json.Unmarshal(data, &s) != nil || s.Agent != agent {
		return ""
	}
	return s.SessionID
}

func writeSession(path, agent, id string) error {
	data, _ := json.Marshal(sessionFile{Agent: agent, SessionID: id})
	if err := renameio.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record the agent's session in %s: %w", path, err)
	}
	return nil
}

func errText(s session, err error) string {
	if s.Error != "" {
		return s.Error
	}
	if err != nil {
		return err.Error()
	}
	return "no error text"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// transient reports an agent that gave up on a rate limit or an
// overloaded or failing API, which a later try may pass.
func transient(s session, err error) bool {
	t := strings.ToLower(errText(s, err))
	for _, k := range []string{"rate limit", "rate_limit", "429", "too many requests", "overloaded", "529", "503", "502", "500 internal", "internal server error"} {
		if strings.Contains(t, k) {
			return true
		}
	}
	return false
}

// sessionGone reports a resume that found no such session.
func sessionGone(s session, err error) bool {
	t := strings.ToLower(errText(s, err))
	return strings.Contains(t, "no conversation found") || strings.Contains(t, "session not found") ||
		strings.Contains(t, "no session") || strings.Contains(t, "not found") && strings.Contains(t, "session")
}

type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxStdout - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

var versions sync.Map // program -> version

// Version is the agent's version (its first line), asked once per
// process; "" when it does not say.
func Version(ctx context.Context, p Preset) string {
	if v, ok := versions.Load(p.Program); ok {
		return v.(string)
	}
	if len(p.VersionArgs) == 0 {
		return ""
	}
	out, err := xec.Output(ctx, xec.Cmd{Name: p.Program, Args: p.VersionArgs, Timeout: 20 * time.Second, Env: p.Env})
	v := ""
	if err == nil {
		v = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
		for _, f := range strings.Fields(v) {
			if f != "" && f[0] >= '0' && f[0] <= '9' {
				v = f
				break
			}
		}
	}
	versions.Store(p.Program, v)
	return v
}

// Check finds the preset's program and its credentials: a missing
// program or no way to log in is said with how to fix it.
func Check(p Preset, root string) error {
	prog := p.Program
	if strings.ContainsRune(prog, '/') && !filepath.IsAbs(prog) && root != "" {
		prog = filepath.Join(root, prog)
	}
	if _, err := xec.LookPath(prog); err != nil {
		return &MissingError{Preset: p, What: fmt.Sprintf("%s (the %s preset's program) is not on PATH: install it (%s), or set [worker.presets.%s] program", p.Program, p.Name, p.Install, p.Name)}
	}
	if !HasCredentials(p) {
		return &MissingError{Preset: p, What: fmt.Sprintf("no credentials for %s: %s", p.Name, p.Login)}
	}
	return nil
}

// HasCredentials reports whether any of the preset's credential variables
// is set or any of its credential files exists in its configuration
// folder ($ConfigDirEnv, else $HOME/ConfigDir); a preset that lists
// neither is assumed able to log in.
func HasCredentials(p Preset) bool {
	if len(p.CredentialEnv) == 0 && len(p.CredentialFiles) == 0 {
		return true
	}
	for _, k := range p.CredentialEnv {
		if os.Getenv(k) != "" {
			return true
		}
	}
	dir := ""
	if p.ConfigDirEnv != "" {
		dir = os.Getenv(p.ConfigDirEnv)
	}
	if home, err := os.UserHomeDir(); dir == "" && err == nil && p.ConfigDir != "" {
		dir = filepath.Join(home, p.ConfigDir)
	}
	if dir == "" {
		return false
	}
	for _, f := range p.CredentialFiles {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// MissingError is a preset that cannot run here: its program or its
// credentials are missing (exit 7, what to install or set).
type MissingError struct {
	Preset Preset
	What   string
}

func (e *MissingError) Error() string { return e.What }
