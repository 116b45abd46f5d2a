package jjx

import (
	"context"
	"fmt"
	"strings"
)

// CommitDetail is a revision with what orchestration needs in one call:
// the workspaces whose working copy it is, its parents' change IDs, and
// the files it changed with line counts.
type CommitDetail struct {
	Commit
	WorkingCopies   []string     // workspace names (jj lists them only when there are several)
	ParentChangeIDs []string     //
	Files           []FileChange // status is left empty
	// Marked: the revision is in the revset LogDetailMarked was given.
	Marked bool
}

const detailTemplate = `"{" ++ DETAILMARK ++ "\"c\":" ++ json(self) ++ ",\"empty\":" ++ json(empty) ++ ",\"conflict\":" ++ json(conflict) ++ ",\"divergent\":" ++ json(divergent) ++
	",\"wc\":" ++ json(working_copies) ++
	",\"pc\":[" ++ parents.map(|p| json(p.change_id())).join(",") ++ "]" ++
	",\"files\":[" ++ self.diff().stat().files().map(|f| "{\"path\":" ++ json(f.path()) ++ ",\"added\":" ++ f.lines_added() ++ ",\"removed\":" ++ f.lines_removed() ++ "}").join(",") ++ "]}\n"`

// detailMark is where LogDetailMarked's template marks a revision.
const detailMark = "DETAILMARK"

type detailLine struct {
	C         Commit `json:"c"`
	Marked    bool   `json:"m"`
	Empty     bool   `json:"empty"`
	Conflict  bool   `json:"conflict"`
	Divergent bool   `json:"divergent"`
	WC        []struct {
		Name string `json:"name"`
	} `json:"wc"`
	PC    []string     `json:"pc"`
	Files []FileChange `json:"files"`
}

// LogDetail returns the revisions of revset, newest first, with details.
// Run on a workspace's Repo it also snapshots that workspace first.
func (r *Repo) LogDetail(ctx context.Context, revset string) ([]CommitDetail, error) {
	return r.logDetail(ctx, revset, plainDetailTemplate)
}

// plainDetailTemplate is detailTemplate marking nothing.
var plainDetailTemplate = strings.Replace(detailTemplate, detailMark, `""`, 1)

// LogDetailMarked is LogDetail, each revision also marked when it is in
// the revset marked (CommitDetail.Marked), in the same one jj call.
func (r *Repo) LogDetailMarked(ctx context.Context, revset, marked string) ([]CommitDetail, error) {
	return r.logDetail(ctx, revset, strings.Replace(detailTemplate, detailMark, `"\"m\":" ++ self.contained_in(`+Quote(marked)+`) ++ ","`, 1))
}

func (r *Repo) logDetail(ctx context.Context, revset, template string) ([]CommitDetail, error) {
	out, err := r.call(ctx, "log", "--no-graph", "-r", revset, "-T", template)
	if err != nil {
		return nil, err
	}
	ls, err := decodeLines[detailLine](out)
	if err != nil {
		return nil, err
	}
	res := make([]CommitDetail, len(ls))
	for i, l := range ls {
		d := CommitDetail{Commit: l.C, ParentChangeIDs: l.PC, Files: l.Files, Marked: l.Marked}
		d.Empty, d.Conflict, d.Divergent = l.Empty, l.Conflict, l.Divergent
		for _, w := range l.WC {
			d.WorkingCopies = append(d.WorkingCopies, w.Name)
		}
		res[i] = d
	}
	return res, nil
}

// Contained reports, for each visible revision of revset, whether it is
// in the revset in; keys are full change IDs.
func (r *Repo) Contained(ctx context.Context, revset, in string) (map[string]bool, error) {
	out, err := r.call(ctx, "log", "--no-graph", "-r", revset, "-T",
		`change_id ++ " " ++ self.contained_in(`+Quote(in)+`) ++ "\n"`)
	if err != nil {
		return nil, err
	}
	res := map[string]bool{}
	for _, l := range lines(out) {
		id, v, ok := strings.Cut(l, " ")
		if !ok {
			return nil, fmt.Errorf("decode jj output %q", l)
		}
		res[id] = v == "true"
	}
	return res, nil
}
