package relay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/author"
	"github.com/specstack/specstack/internal/workflow/pipeline"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
)

// RelayDir is the folder of the relay records in the ledger directory:
// one TOML file per change, <change>.toml, replaced atomically.
const RelayDir = "relay"

// Relay states.
const (
	// RelayAuthoring: the first leg (propose) runs, or was killed:
	// `relay` again resumes it.
	RelayAuthoring = "authoring"
	// RelayFailed: the first leg ended without a valid draft.
	RelayFailed = "failed"
	// RelayParked: at the gate, waiting for `relay go` or `relay no-go`;
	// there is no timeout.
	RelayParked = "parked"
	// RelayGoing: go was given; the second leg (apply) runs or stopped
	// (`relay go` again resumes it).
	RelayGoing   = "going"
	RelayApplied = "applied"
	RelayEnded   = "no-go"
)

// RelayRecord is one relay: `jj openspec relay IDEA-OR-CHANGE`, its
// gate and its decision.
type RelayRecord struct {
	Version  int    `toml:"version" json:"-"`
	Change   string `toml:"change" json:"change"`
	Idea     string `toml:"idea,omitempty" json:"idea,omitempty"`
	Verb     string `toml:"verb" json:"verb"`
	Bookmark string `toml:"bookmark" json:"bookmark"`
	Worker   string `toml:"worker" json:"worker"`
	Timeout  string `toml:"timeout,omitempty" json:"timeout,omitempty"`
	State    string `toml:"state" json:"state"`
	// Revision is the proposal revision's commit id recorded at the gate;
	// RevisionChange its change id, by which go finds it again.
	Revision       string       `toml:"revision,omitempty" json:"revision"`
	RevisionChange string       `toml:"revision_change,omitempty" json:"revision_change"`
	RevisionFrom   string       `toml:"revision_from,omitempty" json:"revision_from"`
	Files          []string     `toml:"files,omitempty" json:"files"`
	Valid          bool         `toml:"valid" json:"valid"`
	Ready          bool         `toml:"apply_ready" json:"apply_ready"`
	Issues         []spec.Issue `toml:"issues,omitempty" json:"issues"`
	Started        time.Time    `toml:"started" json:"started"`
	Parked         time.Time    `toml:"parked,omitzero" json:"parked,omitzero"`
	Decided        time.Time    `toml:"decided,omitzero" json:"decided,omitzero"`
	// PreviousAt is @'s change id before go made @ a new change on the
	// proposal revision.
	PreviousAt string `toml:"previous_at,omitempty" json:"previous_at,omitempty"`
	Phase      string `toml:"phase,omitempty" json:"apply_phase,omitempty"`
	PR         string `toml:"pr,omitempty" json:"pr,omitempty"`
	// Note is why the relay stopped last (an error), empty when it did not.
	Note string `toml:"note,omitempty" json:"note,omitempty"`
}

func relayPath(dir, change string) string {
	return filepath.Join(dir, RelayDir, change+".toml")
}

// ReadRelay reads the relay record of change; nil when there is none.
func ReadRelay(dir, change string) (*RelayRecord, error) {
	r, _, err := ledger.ReadOptional[RelayRecord](relayPath(dir, change))
	return r, err
}

func writeRelay(dir string, r *RelayRecord) error {
	r.Version = 1
	return ledger.WriteFile(relayPath(dir, r.Change), r)
}

// Relays lists the relay records in the ledger directory dir, by change
// name.
func Relays(dir string) ([]*RelayRecord, error) {
	names, err := record.LedgerNames(dir, RelayDir)
	if err != nil {
		return nil, err
	}
	out := []*RelayRecord{}
	for _, name := range names {
		r, err := ReadRelay(dir, name)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *RelayRecord) int { return strings.Compare(a.Change, b.Change) })
	return out, nil
}

// RelayRequest is `jj openspec relay IDEA-OR-CHANGE --worker CMD`.
type RelayRequest struct {
	Arg           string
	Worker        string
	Timeout       string
	WorkspacesDir string
}

// RelayView is what the first leg shows at the gate.
type RelayView struct {
	Relay  *RelayRecord         `json:"relay"`
	Author *author.AuthorResult `json:"author"`
}

// RelayChange names the change of IDEA-OR-CHANGE: a change name (a
// folder name, as it is) or an idea in words, whose slug names the
// change ("Add a CSV export" → add-a-csv-export) and whose text goes to
// the worker in its brief.
func RelayChange(arg string) (change, idea string, err error) {
	arg = strings.TrimSpace(arg)
	if arg != "" && arg == apply.Slug(arg) && arg != "archive" && !strings.HasPrefix(arg, ".") {
		return arg, "", nil
	}
	change = apply.Slug(arg)
	if change == "" || change == "archive" || strings.HasPrefix(change, ".") {
		return "", "", exitcode.New(exitcode.Usage, "relay: give a change name (add-export) or an idea in words (\"Add a CSV export\")")
	}
	return change, arg, nil
}

// Relay runs a relay's first leg, exactly the authoring shape (propose,
// or ff for a change that exists), and parks it at the gate with the
// proposal revision recorded. A relay killed in its first leg resumes
// when run again; a parked one is exit 5 (go or no-go decides it).
func Relay(ctx context.Context, env *apply.Env, req RelayRequest) (*RelayView, error) {
	change, idea, err := RelayChange(req.Arg)
	if err != nil {
		return nil, err
	}
	if err := apply.CheckTimeout(req.Timeout); err != nil {
		return nil, err
	}
	var rec *RelayRecord
	err = underRelayLock(env.Dir, func() error {
		old, err := ReadRelay(env.Dir, change)
		if err != nil {
			return err
		}
		if old != nil {
			switch old.State {
			case RelayParked:
				return exitcode.New(exitcode.NeedsChoice, "the relay of change %s is parked at the gate (proposal revision %s): `jj openspec relay go %s` implements it, `jj openspec relay no-go %s` ends it", change, record.ShortID(old.Revision), change, change)
			case RelayGoing:
				return exitcode.New(exitcode.NeedsChoice, "the relay of change %s is past the gate (its apply under way): `jj openspec relay go %s` resumes it", change, change)
			case RelayAuthoring:
				rec = old
				rec.Worker = cmp.Or(req.Worker, rec.Worker)
				rec.Timeout = cmp.Or(req.Timeout, rec.Timeout)
				fmt.Fprintf(env.Out, "relay: resuming the first leg of %s (started %s)\n", change, rec.Started.Format(time.RFC3339))
				return nil
			}
		}
		if err := engine.NeedWorker(req.Worker, env.Repo.Root); err != nil {
			return err
		}
		verb := "propose"
		if env.Root.CheckChange(change) == nil {
			verb = "ff"
		}
		rec = &RelayRecord{Change: change, Idea: idea, Verb: verb, Bookmark: author.ProposalBookmark(change),
			Worker: req.Worker, Timeout: req.Timeout, State: RelayAuthoring, Started: time.Now().UTC()}
		return writeRelay(env.Dir, rec)
	})
	if err != nil {
		return nil, err
	}
	// A relay killed after its propose finished takes that result again.
	res, aerr := author.FinishedAuthor(env.Dir, rec.Change, rec.Started)
	if res == nil && aerr == nil {
		res, aerr = author.Author(ctx, authorEnv(env), author.AuthorRequest{Verb: rec.Verb, Change: rec.Change, Idea: rec.Idea,
			Worker: rec.Worker, Timeout: rec.Timeout, WorkspacesDir: req.WorkspacesDir})
	}
	engine.CrashPoint("relay-drafted")
	view := &RelayView{Relay: rec, Author: res}
	err = underRelayLock(env.Dir, func() error {
		if res != nil {
			rec.Files, rec.Valid, rec.Ready, rec.Issues = res.Files, res.Valid, res.Ready, res.Issues
		}
		switch {
		case aerr != nil && (exitcode.Of(aerr) == exitcode.Interrupted || exitcode.Of(aerr) == exitcode.Locked):
			// Interrupted, or the lock was held by another run: the
			// first leg did not fail, it is still to finish (run relay
			// again to resume it).
			rec.Note = aerr.Error()
		case aerr != nil:
			rec.State, rec.Note = RelayFailed, aerr.Error()
		default:
			rec.State, rec.Parked, rec.Note = RelayParked, time.Now().UTC(), ""
			rec.Revision, rec.RevisionChange, rec.RevisionFrom = res.Revision, res.ChangeID, res.RevisionFrom
			if !res.Ready {
				rec.Note = "the draft is valid but not apply-ready by its schema: go will refuse until its artifacts are authored"
			}
		}
		return writeRelay(env.Dir, rec)
	})
	return view, errors.Join(aerr, err)
}

// RelayGoRequest is `jj openspec relay go CHANGE`: Apply is the apply
// request (verify commands and the rest of the configuration); its
// Worker, when empty, is the first leg's; its Timeout, when empty, the
// first leg's, else ConfigTimeout ([worker] timeout).
type RelayGoRequest struct {
	Change        string
	Apply         apply.Request
	ConfigTimeout string
}

// RelayGo gives the gate's go: the second leg, exactly the implementing
// shape (apply), on a new change on the recorded proposal revision. A
// proposal revision rewritten since the gate (its change now at another
// commit, or gone) is refused with exit 5. Run again, it resumes the
// apply it started.
func RelayGo(ctx context.Context, env *apply.Env, req RelayGoRequest) (*RelayRecord, *apply.Result, error) {
	for _, t := range []string{req.Apply.Timeout, req.ConfigTimeout} {
		if err := apply.CheckTimeout(t); err != nil {
			return nil, nil, err
		}
	}
	var rec *RelayRecord
	err := underRelayLock(env.Dir, func() error {
		var err error
		if rec, err = gated(env.Dir, req.Change, "go"); err != nil {
			return err
		}
		if err := checkRevision(ctx, env, rec); err != nil {
			return err
		}
		if !rec.Valid || !rec.Ready {
			return exitcode.New(exitcode.Invalid, "relay go %s: the draft on %s is not apply-ready (valid: %t, apply-ready: %t): author its missing artifacts, or end the relay (`jj openspec relay no-go %s`)", rec.Change, rec.Bookmark, rec.Valid, rec.Ready, rec.Change)
		}
		if pl, err := pipeline.UnfinishedPipeline(env.Dir); err != nil || pl != nil {
			if err != nil {
				return err
			}
			return exitcode.New(exitcode.NeedsChoice, "an unfinished pipeline (run %s) is in the ledger: finish it (`jj openspec apply`) or end it (`jj openspec apply --abort`) before the relay of %s goes", pl.RunID, rec.Change)
		}
		p, _, err := apply.Unfinished(env.Dir)
		if err != nil {
			return err
		}
		if p != nil && p.Change != rec.Change {
			if err := ledger.Busy(env.Dir); err != nil {
				return err // a live apply: locked, no decision to make
			}
			return exitcode.New(exitcode.NeedsChoice, "an unfinished apply of change %q (run %s) is in the ledger: finish it (`jj openspec apply %s`) or abort it (`jj openspec apply --abort`) before the relay of %s goes", p.Change, p.RunID, p.Change, rec.Change)
		}
		if p != nil {
			if p.Base != rec.RevisionChange {
				return exitcode.New(exitcode.NeedsChoice, "the unfinished apply of change %s (run %s) is based on %s, not on the relay's proposal revision %s: finish or abort it with `jj openspec apply`", p.Change, p.RunID, record.ShortID(p.Base), record.ShortID(rec.RevisionChange))
			}
		} else {
			// What apply would refuse at once is refused before @ moves.
			if err := apply.CheckVerify(req.Apply.Verify, req.Apply.NoVerify); err != nil {
				return fmt.Errorf("relay go %s: %w", rec.Change, err)
			}
			if err := onRevision(ctx, env, rec); err != nil {
				return err
			}
		}
		if rec.State == RelayParked {
			rec.State, rec.Decided = RelayGoing, time.Now().UTC()
		}
		rec.Note = "" // a note of an earlier go is stale now
		return writeRelay(env.Dir, rec)
	})
	if err != nil {
		return rec, nil, err
	}
	ar := req.Apply
	ar.Change = rec.Change
	ar.Worker = cmp.Or(ar.Worker, rec.Worker)
	ar.Timeout = cmp.Or(ar.Timeout, rec.Timeout, req.ConfigTimeout)
	ar.OnRevision = rec.Revision
	fmt.Fprintf(env.Out, "relay: go for %s on proposal revision %s\n", rec.Change, record.ShortID(rec.Revision))
	res, aerr := apply.Apply(ctx, env, ar)
	engine.PausePoint("relay-go-applied")
	err = underRelayLock(env.Dir, func() error {
		// The record as it is now: a decision taken while the apply ran
		// (no-go after it stopped before starting) is not overwritten,
		// unless the apply did go through.
		cur, err := ReadRelay(env.Dir, rec.Change)
		if err != nil {
			return err
		}
		if cur != nil && cur.State != RelayGoing && aerr != nil {
			rec = cur
			return nil
		}
		rec.Note = ""
		if res != nil {
			rec.Phase = res.Phase
			if res.PR != nil {
				rec.PR = res.PR.URL
			}
		}
		if aerr != nil {
			rec.Note = aerr.Error()
		} else {
			rec.State = RelayApplied
		}
		return writeRelay(env.Dir, rec)
	})
	return rec, res, errors.Join(aerr, err)
}

// RelayNoGo ends a parked relay: nothing is deleted, the proposal
// revision and its bookmark stay as they are.
func RelayNoGo(env *apply.Env, change string) (*RelayRecord, error) {
	var rec *RelayRecord
	err := underRelayLock(env.Dir, func() error {
		var err error
		if rec, err = gated(env.Dir, change, "no-go"); err != nil {
			return err
		}
		if rec.State == RelayGoing {
			// Past the gate: only while its apply has not started (go
			// stopped before it) may the relay still end.
			p, _, err := apply.Unfinished(env.Dir)
			if err != nil {
				return err
			}
			started, err := applyStarted(env.Dir, rec)
			if err != nil {
				return err
			}
			if rec.Phase != "" || started || (p != nil && p.Change == rec.Change) {
				return exitcode.New(exitcode.NeedsChoice, "the relay of change %s is past the gate (go given %s, its apply started): `jj openspec relay go %s` resumes it, `jj openspec apply --abort` undoes it", change, rec.Decided.Format(time.RFC3339), change)
			}
		}
		rec.State, rec.Decided = RelayEnded, time.Now().UTC()
		return writeRelay(env.Dir, rec)
	})
	return rec, err
}

// applyStarted reports whether the ledger's apply run is one of rec's
// change on its proposal revision that was not aborted: go's apply
// started, and may have finished before go wrote so on the record.
func applyStarted(dir string, rec *RelayRecord) (bool, error) {
	p, ok, err := apply.ReadPlan(dir)
	if err != nil || !ok || p.RunID == "" || p.Change != rec.Change || p.Base != rec.RevisionChange {
		return false, err
	}
	d, ok, err := engine.Load(dir)
	if err != nil || !ok || d.Header.RunID != p.RunID {
		return false, err
	}
	return !engine.Fold(d).Aborted, nil
}

// gated reads the relay of change for a decision (verb go or no-go): it
// must be parked, or going for go.
func gated(dir, change, verb string) (*RelayRecord, error) {
	// The name becomes a path in the ledger: one folder name, never a
	// way out of the relay folder.
	if !record.ChangeName.MatchString(change) {
		return nil, exitcode.New(exitcode.Usage, "relay %s: %q is not a change name (letters, digits, '.', '_' and '-', starting with a letter or digit); `jj openspec relay status` lists the relays", verb, change)
	}
	rec, err := ReadRelay(dir, change)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, exitcode.New(exitcode.Usage, "relay %s: there is no relay of change %q (`jj openspec relay status` lists them)", verb, change)
	}
	switch rec.State {
	case RelayParked, RelayGoing:
		return rec, nil
	case RelayApplied:
		return rec, exitcode.New(exitcode.NeedsChoice, "relay %s: the relay of change %s was applied (%s); it is over", verb, change, cmp.Or(rec.PR, rec.Phase))
	case RelayEnded:
		return rec, exitcode.New(exitcode.NeedsChoice, "relay %s: the relay of change %s ended with no-go at %s; start a new one (`jj openspec relay %s --worker CMD`) or run `jj openspec apply %s` on its proposal", verb, change, rec.Decided.Format(time.RFC3339), change, change)
	}
	return rec, exitcode.New(exitcode.NeedsChoice, "relay %s: the relay of change %s is not at the gate (%s%s): run `jj openspec relay %s --worker CMD` to finish its first leg", verb, change, rec.State, noteOf(rec), change)
}

func noteOf(r *RelayRecord) string {
	if r.Note == "" {
		return ""
	}
	return ": " + r.Note
}

// checkRevision refuses a proposal revision rewritten since the gate:
// its change id must still name exactly the commit recorded.
func checkRevision(ctx context.Context, env *apply.Env, rec *RelayRecord) error {
	ids, err := env.Repo.CommitIDs(ctx, jjx.Present(jjx.ID(rec.RevisionChange)))
	if err != nil {
		return fmt.Errorf("read the proposal revision %s of change %s: %w", record.ShortID(rec.RevisionChange), rec.Change, err)
	}
	if len(ids) == 1 && ids[0] == rec.Revision {
		return nil
	}
	now := "it is gone"
	if len(ids) == 1 {
		now = "it is now " + record.ShortID(ids[0])
	} else if len(ids) > 1 {
		now = "it is now divergent (" + strings.Join(ids, ", ") + ")"
	}
	return exitcode.New(exitcode.NeedsChoice, "relay go %s: the proposal revision %s (change %s) was rewritten since the gate (%s): nothing was applied; re-run the relay (`jj openspec relay no-go %s`, `jj bookmark delete %s`, then `jj openspec relay %s --worker CMD`) or run `jj openspec apply %s` on the new revision",
		rec.Change, record.ShortID(rec.Revision), record.ShortID(rec.RevisionChange), now, rec.Change, rec.Bookmark, rec.Change, rec.Change)
}

// onRevision makes @ an empty change on the proposal revision (apply's
// base): kept when it is one, else a new change made there. The old @
// stays as it was (jj abandons it only when it is empty and undescribed).
func onRevision(ctx context.Context, env *apply.Env, rec *RelayRecord) error {
	at, err := apply.ReadAt(ctx, env)
	if err != nil {
		return err
	}
	if at.Empty && len(at.ParentChangeIDs) == 1 && at.ParentChangeIDs[0] == rec.RevisionChange && len(at.Parents) == 1 && at.Parents[0] == rec.Revision {
		return nil
	}
	if _, err := env.Repo.New(ctx, apply.ImplementMessage(rec.Change), true, rec.Revision); err != nil {
		return fmt.Errorf("make @ a new change on the proposal revision %s: %w", record.ShortID(rec.Revision), err)
	}
	if rec.PreviousAt == "" {
		rec.PreviousAt = at.ChangeID
	}
	prev := "the previous @ " + record.ShortID(at.ChangeID) + " is kept"
	if at.Empty && strings.TrimSpace(at.Description) == "" {
		prev = "the previous @ was empty and undescribed: jj let it go"
	}
	fmt.Fprintf(env.Out, "relay: @ is a new change on the proposal revision %s (%s)\n", record.ShortID(rec.Revision), prev)
	return nil
}

// underRelayLock runs f holding the project's jj-openspec lock.
func underRelayLock(dir string, f func() error) error {
	l, err := ledger.Acquire(dir)
	if err != nil {
		return err
	}
	defer l.Release()
	return f()
}

// authorEnv is the part of apply's env the relay's propose works in.
func authorEnv(env *apply.Env) *author.Env {
	return &author.Env{Repo: env.Repo, Root: env.Root, Dir: env.Dir, Out: env.Out, Markers: env.Markers}
}
