package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/specstack/specstack/internal/regfile"
)

// Finding kinds a gate reviewer writes (gh-specstack's reviewers answer
// in kinds). Only the first three block; any other kind, or none, is a
// suggestion and passes.
const (
	KindUnmetCriterion = "unmet-criterion"
	KindRedValidation  = "red-validation"
	KindCorrectness    = "correctness"
)

// KindSeverity places a finding's kind on the one severity scale: an
// unmet criterion, a red validation and a correctness bug are important
// (they block), anything else a suggestion.
func KindSeverity(kind string) string {
	switch kind {
	case KindUnmetCriterion, KindRedValidation, KindCorrectness:
		return SeverityImportant
	}
	return SeveritySuggestion
}

// Label is a finding as one line: id, kind or severity, place, message.
func (f Finding) Label() string {
	s := f.ID + " (" + f.Kind + ")"
	if f.Kind == "" {
		s = f.ID + " (" + f.Severity + ")"
	}
	if f.File != "" {
		s += " " + f.File
		if f.Line > 0 {
			s += fmt.Sprintf(":%d", f.Line)
		}
	}
	return s + ": " + f.Message
}

// Same reports whether f says again what g said: the same file and
// message, spacing and case aside.
func (f Finding) Same(g Finding) bool {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	return strings.EqualFold(f.File, g.File) && strings.EqualFold(norm(f.Message), norm(g.Message))
}

// FixVerdict is a fixer's answer to one finding (one item of its verdicts, a
// JSON array): fixed, or rejected with a checkable reason.
type FixVerdict struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"` // fixed or rejected
	Reason  string `json:"reason,omitempty"`
}

// Rejection is a finding a fixer rejected, carried to every later
// reviewer (gh-specstack gives them as a JSON array).
type Rejection struct {
	Finding Finding `json:"finding"`
	Reason  string  `json:"reason"`
}

// Rerejected returns the rejection f raises again: the one it names, or
// one saying the same.
func Rerejected(f Finding, rejected []Rejection) (Rejection, bool) {
	for _, r := range rejected {
		if (f.Reraises != "" && f.Reraises == r.Finding.ID) || f.Same(r.Finding) {
			return r, true
		}
	}
	return Rejection{}, false
}

// NotJSONError is an answer file that was read but is not the JSON asked
// for.
type NotJSONError struct {
	Path string
	Err  error
}

func (e *NotJSONError) Error() string {
	return fmt.Sprintf("%s is not a JSON array: %v", e.Path, e.Err)
}
func (e *NotJSONError) Unwrap() error { return e.Err }

// readAnswer reads a worker's answer file, a JSON array, into v. A
// missing or empty file is no answer; one that cannot be read (a symbolic
// link, a folder) is an error, as is one that is not JSON (*NotJSONError).
func readAnswer(path string, v any) error {
	data, err := regfile.ReadNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &NotJSONError{Path: path, Err: err}
	}
	return nil
}

// ReadGateFindings reads a gate reviewer's findings file (readAnswer's
// rules). Findings without an id are given prefix and their position.
func ReadGateFindings(path, prefix string) ([]Finding, error) {
	var found []Finding
	if err := readAnswer(path, &found); err != nil {
		return nil, err
	}
	for i := range found {
		if found[i].ID == "" {
			found[i].ID = fmt.Sprintf("%s%d", prefix, i+1)
		}
	}
	return found, nil
}

// ReadFixVerdicts reads a fixer's verdicts file by finding id
// (readAnswer's rules). On a *NotJSONError the map is empty, not nil:
// every finding is then without a verdict.
func ReadFixVerdicts(path string) (map[string]FixVerdict, error) {
	byID := map[string]FixVerdict{}
	var vs []FixVerdict
	err := readAnswer(path, &vs)
	for _, v := range vs {
		byID[v.ID] = v
	}
	return byID, err
}

// The steps a gate records.
const (
	GateDropped    = "dropped"    // a re-raised rejected finding without a falsification
	GateReviewed   = "reviewed"   // a round's review: Status passed or blocked, Count blocking
	GateVerdict    = "verdict"    // a fixer's verdict: Status fixed, rejected or none
	GateUnresolved = "unresolved" // still blocking after the last round
)

// GateStep is one thing a gate did, for its driver to record and log.
type GateStep struct {
	Kind    string
	Round   int
	Status  string
	Finding Finding
	Reason  string
	Count   int
}

// Gate is the one review/fix loop: review, the blocking findings (a
// rejected finding raised again without falsifying the rejection's
// reason is dropped; red checks added), fix, verdicts, again, until a
// review finds nothing blocking or MaxRounds is reached. Every decision
// is recorded through Record before the loop acts on it.
type Gate struct {
	MaxRounds int
	// FixLast sends the last round's blocking findings to the fixer too,
	// and ends after its verdicts without another review (the whole-stack
	// review's one fix); otherwise they are recorded unresolved.
	FixLast bool
	// Review runs the round's reviewer and returns its findings.
	Review func(ctx context.Context, round int, rejected []Rejection, noVerdict []Finding) ([]Finding, error)
	// Red returns the round's red checks as blocking findings.
	Red func(round int) []Finding
	// Fix runs the fixer on the blocking findings; its verdicts by id.
	Fix func(ctx context.Context, round int, blocking []Finding) (map[string]FixVerdict, error)
	// Refresh runs after a fix that another round will review.
	Refresh func(ctx context.Context, round int) error
	Record  func(GateStep) error
}

// GateResult is how a gate ended.
type GateResult struct {
	Rounds   int
	Passed   bool      // the last review found nothing blocking
	Blocking []Finding // the last round's blocking findings
}

// Run runs the loop.
func (g Gate) Run(ctx context.Context) (GateResult, error) {
	var rejected []Rejection
	var noVerdict []Finding
	for round := 1; ; round++ {
		found, err := g.Review(ctx, round, rejected, noVerdict)
		if err != nil {
			return GateResult{}, err
		}
		var blocking []Finding
		for _, f := range found {
			if !f.Blocking() {
				continue
			}
			if r, ok := Rerejected(f, rejected); ok && strings.TrimSpace(f.Falsifies) == "" {
				reason := fmt.Sprintf("%s raises again %s, rejected because %q, without falsifying that reason", f.ID, r.Finding.ID, r.Reason)
				if err := g.Record(GateStep{Kind: GateDropped, Round: round, Finding: f, Reason: reason}); err != nil {
					return GateResult{}, err
				}
				continue
			}
			blocking = append(blocking, f)
		}
		if g.Red != nil {
			blocking = append(blocking, g.Red(round)...)
		}
		status := "passed"
		if len(blocking) > 0 {
			status = "blocked"
		}
		if err := g.Record(GateStep{Kind: GateReviewed, Round: round, Status: status, Count: len(blocking)}); err != nil {
			return GateResult{}, err
		}
		res := GateResult{Rounds: round, Passed: len(blocking) == 0, Blocking: blocking}
		if res.Passed {
			return res, nil
		}
		last := round >= g.MaxRounds
		if last && !g.FixLast {
			for _, f := range blocking {
				if f.Kind == KindRedValidation {
					continue // a red check is the driver's to halt on
				}
				if err := g.Record(GateStep{Kind: GateUnresolved, Round: round, Finding: f}); err != nil {
					return GateResult{}, err
				}
			}
			return res, nil
		}
		verdicts, err := g.Fix(ctx, round, blocking)
		if err != nil {
			return GateResult{}, err
		}
		noVerdict = nil
		for _, f := range blocking {
			v, ok := verdicts[f.ID]
			switch {
			case ok && v.Verdict == "rejected" && strings.TrimSpace(v.Reason) != "":
				rejected = append(rejected, Rejection{Finding: f, Reason: v.Reason})
			case ok && v.Verdict == "fixed":
			default:
				v = FixVerdict{ID: f.ID, Verdict: "none"}
				noVerdict = append(noVerdict, f)
			}
			if err := g.Record(GateStep{Kind: GateVerdict, Round: round, Status: v.Verdict, Finding: f, Reason: v.Reason}); err != nil {
				return GateResult{}, err
			}
		}
		if last {
			return res, nil
		}
		if err := g.Refresh(ctx, round); err != nil {
			return GateResult{}, err
		}
	}
}
