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
		parts = append(parts, "cannot publish (see the warnings)")
	}
	return strings.Join(parts, ", ")
}
