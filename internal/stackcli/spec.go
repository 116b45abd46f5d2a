// Package stackcli holds the commands of gh-specstack. Commands are thin:
// they parse flags into a request, call the stack package, and render the
// result.
package stackcli

import (
	"github.com/specstack/specstack/internal/cliapp"
)

// Spec describes the gh-specstack binary.
func Spec() cliapp.Spec {
	return cliapp.Spec{
		Name:     "gh-specstack",
		Guide:    "specstack-stack",
		Examples: examples,
		Doctor:   doctorGitHub,
		Usage:    "build a GitHub spec issue's tickets as a stack of pull requests",
		Description: `gh-specstack reads a GitHub spec issue and its sub-issue tickets, plans them
in dependency layers, extracts their validation recipes, and links branches
(jj bookmarks or git branches) into a stack of draft pull requests, registered
as a native GitHub stack or a plain --base chain.

Use it as "gh specstack VERB" after registering it with gh:
   gh-specstack install-extension

Like every gh extension it takes the token from GH_TOKEN, GITHUB_TOKEN
(GH_ENTERPRISE_TOKEN for other hosts) or gh auth login, the host from GH_HOST,
and the repository from GH_REPO or the origin remote. GH_SPECSTACK_API_URL
overrides the REST API base URL (a GitHub Enterprise proxy, or a test server;
plain http allowed), and then no request goes anywhere else. Each request has
a deadline: GH_SPECSTACK_TIMEOUT (a Go duration such as 30s or 2m), else
[github] timeout in specstack.toml, else 30s; a request GitHub does not answer
in time fails (exit 1) naming the request and the limit.`,
		Commands: commands(),
		Skill:    skill,
	}
}
