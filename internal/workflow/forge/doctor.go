package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/xec"
)

// AskDoctor asks gh-specstack (prog) what GitHub needs from the
// repository in dir: its doctor's github section (the repository, the
// token, the remote workers' workflow). Its doctor exits 7 on problems
// of its own; its JSON is read anyway.
func AskDoctor(ctx context.Context, prog, dir string) (*doctor.GitHub, error) {
	var out bytes.Buffer
	err := xec.Run(ctx, xec.Cmd{Name: prog, Args: []string{"-R", dir, "doctor", "--json"}, Dir: dir, Stdout: &out, Timeout: time.Minute})
	var theirs struct {
		GitHub *doctor.GitHub `json:"github"`
	}
	jerr := json.Unmarshal(out.Bytes(), &theirs)
	if jerr == nil && theirs.GitHub != nil {
		return theirs.GitHub, nil
	}
	why := errors.Join(err, jerr)
	if why == nil {
		why = errors.New("no github section in its report")
	}
	return nil, fmt.Errorf("could not ask %s (%s -R %s doctor --json: %w)", GitHubProgram, prog, dir, why)
}
