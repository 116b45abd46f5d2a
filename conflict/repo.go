package conflict

import (
	"context"
	"fmt"

	"github.com/specstack/specstack/jjx"
)

// RevisionConflicts is one conflicted revision and its conflicted files.
type RevisionConflicts struct {
	ChangeID    string         `json:"change_id"`
	CommitID    string         `json:"commit_id"`
	Description string         `json:"description"`
	Files       []FileConflict `json:"files"`
}

// FileConflict summarizes one conflicted file.
type FileConflict struct {
	Path     string    `json:"path"`
	Hunks    int       `json:"hunks"`
	Sides    int       `json:"sides"` // the most sides of any hunk
	Problems []Problem `json:"problems,omitempty"`
}

// Scan lists the conflicted revisions of revset, newest first, with each
// conflicted file's hunks and sides as jj materializes them. A revset jj
// refuses on its own is a *jjx.RevsetError (exit code usage).
func Scan(ctx context.Context, repo *jjx.Repo, revset string) ([]RevisionConflicts, error) {
	if err := repo.CheckRevset(ctx, revset); err != nil {
		return nil, err
	}
	revs, err := repo.ConflictedRevisions(ctx, revset)
	if err != nil {
		return nil, fmt.Errorf("list conflicted revisions in %q: %w", revset, err)
	}
	out := make([]RevisionConflicts, 0, len(revs))
	for _, c := range revs {
		rc := RevisionConflicts{ChangeID: c.ChangeID, CommitID: c.CommitID, Description: firstLine(c.Description)}
		paths, err := repo.ConflictedFiles(ctx, c.CommitID)
		if err != nil {
			return nil, fmt.Errorf("list conflicted files of %s: %w", short(c.ChangeID), err)
		}
		for _, p := range paths {
			fc := FileConflict{Path: p}
			content, err := repo.FileShow(ctx, c.CommitID, p)
			if err != nil {
				fc.Problems = []Problem{{Kind: ProblemMalformed, Message: fmt.Sprintf("read %s at %s: %v", p, short(c.ChangeID), err)}}
			} else {
				f := Parse(content)
				fc.Hunks, fc.Problems = len(f.Hunks), f.Problems
				for _, h := range f.Hunks {
					fc.Sides = max(fc.Sides, len(h.Sides))
				}
			}
			rc.Files = append(rc.Files, fc)
		}
		out = append(out, rc)
	}
	return out, nil
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
