package openspeccli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/internal/xec"
)

// noPush is the way on without what publishing needs.
const noPush = " (until then, apply with --no-push)"

// doctorPublishing adds to doctor's report what apply's push and pull
// request need: gh-specstack, which publishes, and what it needs (its
// own doctor's answer: a GitHub repository and a token). Each thing
// missing is a warning: apply --no-push works without them.
func doctorPublishing(ctx context.Context, dir string, rep *doctor.Report) {
	g := &doctor.GitHub{Missing: []string{}}
	defer rep.AddGitHub(g)
	prog := forge.GitHubProgramPath()
	if prog == "" {
		g.Missing = append(g.Missing, "publishing needs "+forge.GitHubProgram+", found neither beside jj-openspec nor on PATH: `make install` installs it with jj-openspec"+noPush)
		return
	}
	g.Program = prog
	var out bytes.Buffer
	// Its doctor exits 7 on problems of its own; its JSON is read anyway.
	err := xec.Run(ctx, xec.Cmd{Name: prog, Args: []string{"-R", dir, "doctor", "--json"}, Dir: dir, Stdout: &out, Timeout: time.Minute})
	var theirs struct {
		GitHub *doctor.GitHub `json:"github"`
	}
	if jerr := json.Unmarshal(out.Bytes(), &theirs); jerr != nil || theirs.GitHub == nil {
		g.Missing = append(g.Missing, fmt.Sprintf("publishing: could not ask %s what it needs (%s -R %s doctor --json: %v)%s", forge.GitHubProgram, prog, dir, firstErr(err, jerr), noPush))
		return
	}
	g.Repo, g.Token = theirs.GitHub.Repo, theirs.GitHub.Token
	for _, m := range theirs.GitHub.Missing {
		g.Missing = append(g.Missing, m+noPush)
	}
}

// firstErr is the first error that is not nil.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return fmt.Errorf("no github section in its report")
}
