// Package doctor gathers what a specstack binary needs to know about the
// machine and repository it runs in.
package doctor

import (
	"context"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/agent"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

// Tool is one external program.
type Tool struct {
	Found   bool   `json:"found"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Minimum string `json:"minimum"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
}

// Report is what doctor prints.
type Report struct {
	Binary    string `json:"binary"`
	Version   string `json:"version"`
	Dir       string `json:"dir"`
	RepoKind  string `json:"repo_kind"` // jj, jj-colocated, git or none
	RepoRoot  string `json:"repo_root,omitempty"`
	LedgerDir string `json:"ledger_dir,omitempty"`
	JJ        Tool   `json:"jj"`
	Git       Tool   `json:"git"`
	// JJUser is who jj records as the author of new commits.
	JJUser *jjx.Identity `json:"jj_user,omitempty"`
	// WorkspacesDir is where jj-kaisen and jj-openspec create this
	// repository's task workspaces.
	WorkspacesDir string `json:"workspaces_dir,omitempty"`
	// WorkspacesSetting is the setting WorkspacesDir's parent comes
	// from (config.WorkspacesSetting; "" for the default), for Text.
	WorkspacesSetting string   `json:"-"`
	ConfigFiles       []string `json:"config_files"`
	// GitHub is what publishing needs (jj-openspec, gh-specstack); nil
	// where the binary does not publish or doctor could not look.
	GitHub *GitHub `json:"github,omitempty"`
	// Agents are the agent presets --worker and --reviewer can name.
	Agents []Agent `json:"agents"`
	// Warnings do not make the report fail: things work, but not as well.
	Warnings []string `json:"warnings"`
	Problems []string `json:"problems"`
}

// Agent is one agent preset as doctor finds it.
type Agent struct {
	Name        string `json:"name"`
	BuiltIn     bool   `json:"built_in"`
	Program     string `json:"program"`
	Found       bool   `json:"found"`
	Path        string `json:"path,omitempty"`
	Version     string `json:"version,omitempty"`
	Credentials bool   `json:"credentials"`
	// Used says which settings name it ("worker", "reviewer").
	Used []string `json:"used,omitempty"`
}

func (a Agent) text() string {
	s := a.Program + ": not found"
	if a.Found {
		s = orDash(a.Version) + " at " + a.Path
	}
	if a.Credentials {
		s += ", credentials present"
	} else {
		s += ", no credentials"
	}
	if len(a.Used) > 0 {
		s += " (the configured " + strings.Join(a.Used, " and ") + ")"
	}
	return s
}

// agents checks every preset: its program, its version and whether it
// can log in. One the configuration names that cannot run is a problem.
func (r *Report) agents(ctx context.Context, cfg *config.Config, root string) {
	r.Agents = []Agent{}
	for _, name := range agent.Names() {
		p, _ := agent.Lookup(name)
		a := Agent{Name: name, BuiltIn: p.BuiltIn, Program: p.Program, Credentials: agent.HasCredentials(p)}
		if path, err := xec.LookPath(p.Program); err == nil {
			a.Found, a.Path, a.Version = true, path, agent.Version(ctx, p)
		}
		if cfg != nil {
			if strings.TrimSpace(cfg.Worker.Command) == name {
				a.Used = append(a.Used, "worker")
			}
			if strings.TrimSpace(cfg.Worker.Reviewer) == name {
				a.Used = append(a.Used, "reviewer")
			}
		}
		if len(a.Used) > 0 {
			if err := agent.Check(p, root); err != nil {
				r.Problems = append(r.Problems, "the configured "+strings.Join(a.Used, " and ")+": "+err.Error())
			}
		}
		r.Agents = append(r.Agents, a)
	}
}

// AddGitHub records what publishing needs; each thing missing is a
// warning.
func (r *Report) AddGitHub(g *GitHub) {
	r.GitHub = g
	r.Warnings = append(r.Warnings, g.Missing...)
}

// OK reports whether nothing is wrong.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Gather builds the report for binary run in dir.
func Gather(ctx context.Context, binary, version, dir string) *Report {
	rep := &Report{Binary: binary, Version: version, Dir: dir, RepoKind: "none", ConfigFiles: []string{}, Warnings: []string{}, Problems: []string{}}

	found, findErr := repo.Find(dir)
	rep.JJ.Minimum = jjx.MinVersion
	if bin, v, err := jjx.Find(ctx); err != nil {
		rep.JJ.Problem = err.Error()
		rep.JJ.Path, rep.JJ.Found = bin, bin != ""
		rep.JJ.Version = v.Raw
		// gh-specstack works on plain git repositories without jj.
		if !(binary == "gh-specstack" && findErr == nil && !found.IsJJ()) {
			rep.Problems = append(rep.Problems, err.Error())
		}
	} else {
		rep.JJ = Tool{Found: true, Path: bin, Version: v.Raw, Minimum: jjx.MinVersion, OK: true}
		id, err := jjx.UserIdentity(ctx, bin, dir)
		if err != nil {
			rep.Warnings = append(rep.Warnings, err.Error())
		} else {
			rep.JJUser = &id
			if hint := id.IdentityHint(); hint != "" {
				rep.Warnings = append(rep.Warnings, hint)
			}
		}
	}

	rep.Git.Minimum = gitx.MinVersion
	if bin, v, err := gitx.Find(ctx); err != nil {
		rep.Git.Problem = err.Error()
		rep.Git.Path, rep.Git.Found = bin, bin != ""
		rep.Git.Version = v
		rep.Problems = append(rep.Problems, err.Error())
	} else {
		rep.Git = Tool{Found: true, Path: bin, Version: v, Minimum: gitx.MinVersion, OK: true}
		if !gitx.SupportsColocatedWorkspaces(v) {
			rep.Git.Problem = "git older than 2.42: jj workspaces are created with --no-colocate"
		}
	}

	root := ""
	if findErr != nil {
		rep.Problems = append(rep.Problems, findErr.Error())
	} else {
		rep.RepoKind, rep.RepoRoot, rep.LedgerDir = string(found.Kind), found.Root, found.LedgerDir(binary)
		root = found.Root
		if !found.IsJJ() {
			switch binary {
			case "jj-kaisen":
				// run, plan's base check and every step verb need jj.
				rep.Problems = append(rep.Problems, found.Root+" is a git repository without jj: jj-kaisen runs tasks in jj workspaces; make it a jj repository with `jj git init --colocate` (git keeps working)")
			case "jj-openspec":
				rep.Warnings = append(rep.Warnings, found.Root+" is a git repository without jj: list, status, validate and archive work, but apply, propose, relay and explore need jj workspaces (`jj git init --colocate` makes it one; git keeps working)")
			}
		}
	}
	cfg, err := config.Load(root)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
		cfg = nil
	}
	rep.agents(ctx, cfg, root)
	if cfg != nil {
		rep.ConfigFiles = append(rep.ConfigFiles, cfg.Files...)
		if root != "" && binary != "gh-specstack" {
			rep.WorkspacesDir = config.WorkspacesDir(cfg, root)
			rep.WorkspacesSetting = config.WorkspacesSetting(cfg)
		}
	}
	return rep
}

// Text renders the report for a person.
func (r *Report) Text() string {
	var b strings.Builder
	line := func(k, v string) { b.WriteString(k + ": " + v + "\n") }
	line(r.Binary, r.Version)
	line("repository", r.RepoKind+orEmpty(" at ", r.RepoRoot))
	line("ledger", orDash(r.LedgerDir))
	line("jj", toolText(r.JJ))
	line("git", toolText(r.Git))
	if r.JJUser != nil {
		line("jj user", r.JJUser.String())
	}
	if r.WorkspacesDir != "" {
		line("workspaces", r.WorkspacesDir+" ("+workspacesOrigin(r.WorkspacesSetting)+")")
	}
	if len(r.ConfigFiles) == 0 {
		line("config", "none read (specstack.toml, "+config.UserFile()+")")
	} else {
		line("config", strings.Join(r.ConfigFiles, ", "))
	}
	if r.GitHub != nil {
		line("github", r.GitHub.text())
		if r.GitHub.ActionsWorker != nil {
			line("actions worker", r.GitHub.ActionsWorker.Text())
		}
	}
	for _, a := range r.Agents {
		line("agent "+a.Name, a.text())
	}
	for _, w := range r.Warnings {
		line("warning", w)
	}
	for _, p := range r.Problems {
		line("problem", p)
	}
	if r.OK() {
		b.WriteString("ok\n")
	}
	return b.String()
}

// workspacesOrigin says where the workspaces' folder comes from: the
// setting that chose it, or the default and what would change it.
func workspacesOrigin(setting string) string {
	if setting != "" {
		return "set by " + setting
	}
	return "the default; set " + config.WorkspacesEnv + " or [kaisen] workspaces-dir to move it"
}

func toolText(t Tool) string {
	if !t.Found {
		return "not found (need >= " + t.Minimum + ")"
	}
	s := t.Version + " at " + t.Path
	if t.OK {
		s += " (ok, need >= " + t.Minimum + ")"
	} else {
		s += " (too old, need >= " + t.Minimum + ")"
	}
	if t.Problem != "" && t.OK {
		s += "; " + t.Problem
	}
	return s
}

func orEmpty(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
