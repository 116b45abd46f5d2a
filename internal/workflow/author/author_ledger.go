package author

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/spec"
)

// AuthorDir is the folder of the authoring runs in the ledger directory:
// one ledger document per change, <change>.toml, whose events are only
// appended (each write atomic), so a killed propose, new or ff resumes
// from it.
const AuthorDir = "author"

// AuthorRun is an authoring run's header: what was asked and decided
// before the workspace was provisioned.
type AuthorRun struct {
	RunID    string `toml:"run_id" json:"run_id"`
	Verb     string `toml:"verb" json:"verb"`
	Change   string `toml:"change" json:"change"`
	Idea     string `toml:"idea,omitempty" json:"-"`
	Bookmark string `toml:"bookmark" json:"bookmark"`
	Worker   string `toml:"worker" json:"worker"`
	Timeout  string `toml:"timeout,omitempty" json:"timeout,omitempty"`
	Publish  bool   `toml:"publish,omitempty" json:"publish"`
	Health   string `toml:"health" json:"health_check"`
	Base     string `toml:"base" json:"base"`
	// BaseOnWork: trunk() was root(); Base is the revision the user's
	// work was on.
	BaseOnWork bool   `toml:"base_on_work,omitempty" json:"base_on_work"`
	Workspace  string `toml:"workspace" json:"workspace"`
	// WorkspacesDir is where the workspace is (the resumed run's too).
	WorkspacesDir string    `toml:"workspaces_dir" json:"-"`
	Started       time.Time `toml:"started" json:"started"`
}

// AuthorDoc is an authoring run's ledger document.
type AuthorDoc = ledger.Doc[AuthorRun, engine.AuthorEvent]

func authorPath(dir, change string) string {
	return filepath.Join(dir, AuthorDir, change+".toml")
}

// ReadAuthor reads the authoring run of change; nil when there is none.
func ReadAuthor(dir, change string) (*AuthorDoc, error) {
	d, err := ledger.Read[AuthorRun, engine.AuthorEvent](authorPath(dir, change))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return d, err
}

// foldAuthor is the run's state: the engine's fold of its events.
func foldAuthor(d *AuthorDoc) engine.AuthorState { return engine.FoldAuthor(d.Events) }

// workerSucceeded reports a worker event that left a result to use.
func workerSucceeded(e *engine.AuthorWorked) bool {
	return e != nil && (e.Status == engine.StatusDone || e.Status == engine.StatusConcerns) && e.Reason != "empty"
}

// AuthorStatus is one authoring run as `propose --status` shows it.
type AuthorStatus struct {
	AuthorRun
	// Phase: done (valid), done (invalid), halted (the worker left no
	// result: the verb run again retries), or interrupted after a step
	// (the verb run again resumes).
	Phase string `json:"phase"`
	// Resumable: the verb run again goes on with it (not done).
	Resumable bool   `json:"resumable"`
	Commit    string `json:"commit,omitempty"`
	Ledger    string `json:"ledger"`
}

// AuthorRuns lists the authoring runs in the ledger directory dir, by
// change name.
func AuthorRuns(dir string) ([]AuthorStatus, error) {
	names, err := record.LedgerNames(dir, AuthorDir)
	if err != nil {
		return nil, err
	}
	out := []AuthorStatus{}
	for _, name := range names {
		d, err := ReadAuthor(dir, name)
		if err != nil {
			return nil, err
		}
		if d == nil {
			continue
		}
		s := foldAuthor(d)
		st := AuthorStatus{AuthorRun: d.Header, Ledger: authorPath(dir, name)}
		if s.Drafted != nil {
			st.Commit = s.Drafted.Commit
		}
		st.Resumable = s.Done == nil
		switch {
		case s.Done != nil:
			st.Phase = "done (" + s.Done.Status + ")"
		case s.Worker != nil && !workerSucceeded(s.Worker):
			st.Phase = "halted (the worker ended " + s.Worker.Status + ")"
		case len(d.Events) == 0:
			st.Phase = "interrupted before its workspace"
		default:
			st.Phase = "interrupted after " + d.Events[len(d.Events)-1].Kind()
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b AuthorStatus) int { return strings.Compare(a.Change, b.Change) })
	return out, nil
}

// FinishedAuthor returns the result of change's authoring run when that
// run finished (valid) after since: what a caller killed after the run
// ended and before it took the result (relay's gate) takes again.
func FinishedAuthor(dir, change string, since time.Time) (*AuthorResult, error) {
	d, err := ReadAuthor(dir, change)
	if err != nil || d == nil {
		return nil, err
	}
	s := foldAuthor(d)
	if s.Done == nil || s.Done.Status != "valid" || s.Drafted == nil || d.Header.Started.Before(since) {
		return nil, nil
	}
	h, dr := d.Header, s.Drafted
	res := &AuthorResult{Verb: h.Verb, Change: h.Change, Bookmark: h.Bookmark, Base: h.Base, Health: h.Health,
		Commit: dr.Commit, Revision: dr.Revision, RevisionFrom: dr.RevisionFrom, ChangeID: dr.ChangeID,
		Files: dr.Files, Valid: dr.Valid, Ready: dr.Ready, Issues: dr.Issues, Worker: s.Worker.Status}
	if res.Issues == nil {
		res.Issues = []spec.Issue{}
	}
	if p := s.Published; p != nil {
		res.Published = p.Status
		if p.PRURL != "" {
			res.PR = &forge.PRView{Number: p.PRNumber, URL: p.PRURL, Action: p.PRAction}
		}
	}
	return res, nil
}
