// Package agent runs real AI coding agents as specstack workers: Claude
// Code and the OpenAI Codex CLI built in, any other agent through a preset
// a user defines in specstack.toml.
//
// A preset is data, never a shell string: the program, its argv for a
// first session, for a resumed one and for a reviewer, the environment,
// and how its output is read. The brief reaches the agent on stdin (a
// prompt file specstack writes); nothing a task or a ticket says is ever
// part of a command line. Whatever the agent answers is turned back into
// specstack's worker protocol: the implementer's final message becomes
// its report (with its "Status:" line), a reviewer's structured answer
// becomes the findings file, and the agent's own accounting (session,
// turns, tokens, cost, denied permissions) is returned to be recorded.
package agent

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// How a preset's output is read.
const (
	// OutputClaude is Claude Code's print mode with --output-format json:
	// one JSON object on stdout.
	OutputClaude = "claude-json"
	// OutputCodex is `codex exec --json`: JSON events, one a line, on
	// stdout, and the final message in the file -o names.
	OutputCodex = "codex-json"
	// OutputText is any other agent: its stdout is its final message.
	OutputText = "text"
)

// Placeholders a preset's argv may hold. Each is one whole argument,
// replaced by one argument.
const (
	PlaceWorkspace   = "{workspace}"    // the job's working directory
	PlaceSession     = "{session}"      // the session resumed (ResumeArgs)
	PlaceLastMessage = "{last_message}" // a file the agent writes its final message to
	PlaceSchema      = "{schema}"       // the answer's JSON schema, as text
	PlaceSchemaFile  = "{schema_file}"  // the answer's JSON schema, in a file
	PlacePromptFile  = "{prompt_file}"  // the prompt, in a file (when the agent cannot read stdin)
)

// Preset is how to run one agent.
type Preset struct {
	Name    string
	Program string // looked up on PATH unless it holds a slash
	// Args follow the program for a first session; ResumeArgs replace
	// them to continue the session {session} (none: never resumed).
	Args       []string
	ResumeArgs []string
	// ReviewArgs are added (after Args or ResumeArgs) when the agent must
	// answer in a JSON schema: a reviewer's findings.
	ReviewArgs []string
	// ReadOnlyArgs are added for roles that must not edit (reviewers).
	ReadOnlyArgs []string
	// AllowFlag precedes each entry of the allow list (the agent's own
	// permission rules); DenyFlag each entry of the deny list.
	AllowFlag, DenyFlag string
	Allow, Deny         []string
	// ShellRule turns a shell command the job may run (a test command)
	// into an allow entry ("Bash(%s)"); empty: the agent has no such rules.
	ShellRule   string
	Env         []string // NAME=value, on top of the inherited environment
	Output      string   // OutputClaude, OutputCodex or OutputText
	VersionArgs []string
	// Credentials: any of these variables set, or any of these files
	// present in the agent's configuration folder ($ConfigDirEnv when
	// set, else $HOME/ConfigDir), means the agent can log in.
	CredentialEnv   []string
	CredentialFiles []string
	ConfigDirEnv    string
	ConfigDir       string
	Login           string // how to log in, for the error
	Install         string // how to install the agent, for the error
	// Package is the npm package that installs Program, at Version: the
	// version specstack is tested with (testdata/tools/install-agents
	// pins the same), which a GitHub Actions runner installs.
	Package, Version string
	BuiltIn          bool
}

// deniedCommands are what no worker may run, whatever the preset allows:
// publishing and rewriting history are specstack's, after its checks (the
// integrity check still verifies afterwards).
var deniedCommands = []string{"git push", "jj git push", "jj op", "jj workspace", "jj abandon", "git reset --hard"}

func claudeDenies() []string {
	var out []string
	for _, c := range deniedCommands {
		out = append(out, "Bash("+c+":*)")
	}
	return out
}

// builtIn are the presets specstack ships, tested against the real CLIs
// (Claude Code 2.1.328, Codex 0.169.0) on a fake model.
var builtIn = map[string]Preset{
	"claude": {
		Name: "claude", Program: "claude", BuiltIn: true,
		Args: []string{"-p", "--output-format", "json", "--permission-mode", "acceptEdits"},
		// The session is resumed with the next prompt on stdin.
		ResumeArgs:   []string{"-p", "--output-format", "json", "--permission-mode", "acceptEdits", "--resume", PlaceSession},
		ReviewArgs:   []string{"--json-schema", PlaceSchema},
		ReadOnlyArgs: []string{"--disallowedTools", "Edit", "--disallowedTools", "Write", "--disallowedTools", "NotebookEdit"},
		AllowFlag:    "--allowedTools", DenyFlag: "--disallowedTools", ShellRule: "Bash(%s)",
		Deny:            claudeDenies(),
		Env:             []string{"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"},
		Output:          OutputClaude,
		VersionArgs:     []string{"--version"},
		CredentialEnv:   []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"},
		CredentialFiles: []string{".credentials.json"},
		ConfigDirEnv:    "CLAUDE_CONFIG_DIR", ConfigDir: ".claude",
		Login:   "set ANTHROPIC_API_KEY, or run `claude login` (or `claude setup-token`)",
		Install: "npm install -g @anthropic-ai/claude-code (or see https://docs.anthropic.com/en/docs/claude-code)",
		Package: "@anthropic-ai/claude-code", Version: "2.1.328",
	},
	"codex": {
		Name: "codex", Program: "codex", BuiltIn: true,
		// jj workspaces made with --no-colocate hold no .git: the check
		// that codex runs in a repository is skipped (the workspace is
		// one). The prompt comes on stdin ("-").
		Args: []string{"exec", "--json", "--sandbox", "workspace-write", "--skip-git-repo-check",
			"--cd", PlaceWorkspace, "--output-last-message", PlaceLastMessage},
		// resume takes neither --cd nor --sandbox: it runs in the
		// workspace (the job's directory) with the sandbox as a setting.
		ResumeArgs: []string{"exec", "resume", "--json", "-c", `sandbox_mode="workspace-write"`, "--skip-git-repo-check",
			"--output-last-message", PlaceLastMessage, PlaceSession},
		ReviewArgs:      []string{"--output-schema", PlaceSchemaFile},
		Output:          OutputCodex,
		VersionArgs:     []string{"--version"},
		CredentialEnv:   []string{"OPENAI_API_KEY", "CODEX_API_KEY"},
		CredentialFiles: []string{"auth.json"},
		ConfigDirEnv:    "CODEX_HOME", ConfigDir: ".codex",
		Login:   "set OPENAI_API_KEY, or run `codex login`",
		Install: "npm install -g @openai/codex (or see https://github.com/openai/codex)",
		Package: "@openai/codex", Version: "0.169.0",
	},
}

var (
	mu     sync.RWMutex
	custom = map[string]Preset{}
)

// Config is a preset as specstack.toml defines it ([worker.presets.NAME]);
// a field left empty keeps the built-in preset's value when NAME is one.
type Config struct {
	Program    string            `toml:"program"`
	Args       []string          `toml:"args"`
	ResumeArgs []string          `toml:"resume-args"`
	ReviewArgs []string          `toml:"review-args"`
	Output     string            `toml:"output"`
	Allow      []string          `toml:"allow"` // the agent's own permission rules, e.g. "Bash(make test)"
	Env        map[string]string `toml:"env"`
}

// Configure installs the presets a configuration defines, replacing any
// installed before. A name that is a built-in preset amends it (its
// program, or an allow list for the shell commands its agent may run).
func Configure(cfgs map[string]Config) error {
	next := map[string]Preset{}
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		c := cfgs[name]
		if !validName(name) {
			return fmt.Errorf("[worker.presets.%s]: a preset name is letters, digits, '-' and '_' (it is what --worker takes)", name)
		}
		p, ok := builtIn[name]
		if !ok {
			p = Preset{Name: name, Output: OutputText}
			if c.Program == "" || len(c.Args) == 0 {
				return fmt.Errorf("[worker.presets.%s]: program and args are required for a preset that is not built in (built in: %s)", name, strings.Join(BuiltInNames(), ", "))
			}
		}
		p.Args, p.ResumeArgs, p.ReviewArgs = slices.Clone(p.Args), slices.Clone(p.ResumeArgs), slices.Clone(p.ReviewArgs)
		if c.Program != "" {
			p.Program = c.Program
		}
		if c.Args != nil {
			p.Args = c.Args
		}
		if c.ResumeArgs != nil {
			p.ResumeArgs = c.ResumeArgs
		}
		if c.ReviewArgs != nil {
			p.ReviewArgs = c.ReviewArgs
		}
		switch c.Output {
		case "":
		case OutputClaude, OutputCodex, OutputText:
			p.Output = c.Output
		default:
			return fmt.Errorf("[worker.presets.%s] output = %q: want %q, %q or %q", name, c.Output, OutputClaude, OutputCodex, OutputText)
		}
		p.Allow = append(slices.Clone(p.Allow), c.Allow...)
		p.Env = slices.Clone(p.Env)
		for _, k := range slices.Sorted(maps.Keys(c.Env)) {
			p.Env = append(p.Env, k+"="+c.Env[k])
		}
		next[name] = p
	}
	mu.Lock()
	custom = next
	mu.Unlock()
	return nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// Lookup returns the preset a worker setting names: the setting is a
// preset exactly when it is one's name (a configured one first, then a
// built-in one). Anything else is a shell command.
func Lookup(command string) (Preset, bool) {
	name := strings.TrimSpace(command)
	mu.RLock()
	p, ok := custom[name]
	mu.RUnlock()
	if ok {
		return p, true
	}
	p, ok = builtIn[name]
	return p, ok
}

// BuiltInNames lists the built-in presets.
func BuiltInNames() []string {
	names := slices.Collect(maps.Keys(builtIn))
	sort.Strings(names)
	return names
}

// Names lists every preset, configured and built in.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	set := map[string]bool{}
	for n := range builtIn {
		set[n] = true
	}
	for n := range custom {
		set[n] = true
	}
	return slices.Sorted(maps.Keys(set))
}
