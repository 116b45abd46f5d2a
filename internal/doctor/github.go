package doctor

import "strings"

// GitHub is what publishing to GitHub needs, as the binary that
// publishes found it: gh-specstack (jj-openspec publishes through it),
// the GitHub repository the origin remote (or GH_REPO) names, and a
// token. What is missing is a warning, not a problem: everything but
// publishing works without it (jj-openspec apply --no-push).
type GitHub struct {
	Program string `json:"program,omitempty"` // gh-specstack, for jj-openspec
	Repo    string `json:"repo,omitempty"`    // HOST/OWNER/NAME
	Token   bool   `json:"token"`
	// Missing says, one line each, what publishing lacks and how to get it.
	Missing []string `json:"missing"`
	// ActionsWorker is the remote worker's workflow on the default
	// branch, when the repository and a token were found to look.
	ActionsWorker *ActionsWorker `json:"actions_worker,omitempty"`
}

// ActionsWorker is what doctor found of the GitHub Actions workflow a
// remote worker runs. Remote workers are optional: nothing here is a
// warning.
type ActionsWorker struct {
	Path string `json:"path"`
	Repo string `json:"repo"` // OWNER/NAME
	Ref  string `json:"ref"`  // the default branch
	// Present: the file is on Ref; CanDispatch: the token has write
	// access, which dispatching needs.
	Present     bool `json:"present"`
	CanDispatch bool `json:"can_dispatch"`
	// Error is why doctor could not look (a request GitHub refused or
	// did not answer).
	Error string `json:"error,omitempty"`
}

// Text is the report's "actions worker" line.
func (a *ActionsWorker) Text() string {
	switch {
	case a.Error != "":
		return "could not look for " + a.Path + ": " + a.Error
	case !a.Present:
		return a.Path + " is not on " + a.Ref + ": remote workers need it (gh specstack workflow init, then commit and push it)"
	case !a.CanDispatch:
		return a.Path + " on " + a.Ref + ", but the token cannot dispatch it (it needs write access to " + a.Repo + ")"
	}
	return a.Path + " on " + a.Ref + ", the token can dispatch it"
}

// OK reports whether publishing has what it needs.
func (g *GitHub) OK() bool { return len(g.Missing) == 0 }

// text is the report's "github" line.
func (g *GitHub) text() string {
	var parts []string
	if g.Program != "" {
		parts = append(parts, "publishes through "+g.Program)
	}
	if g.Repo != "" {
		parts = append(parts, g.Repo)
	}
	if g.Token {
		parts = append(parts, "token found")
	}
	if !g.OK() {
		parts = append(parts, "something is missing (see the warnings)")
	}
	return strings.Join(parts, ", ")
}
