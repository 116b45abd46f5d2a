package openspeccli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// changeReport validates change with OpenSpec 1.13.2's change-delta rules,
// and, beyond OpenSpec, its unresolved conflict markers (an ERROR each:
// OpenSpec would take them as text).
func changeReport(r spec.Root, name string, strict bool) (spec.Report, error) {
	rep, err := r.ValidateChange(name, spec.ValidateOptions{MainSpecs: true, Tasks: true}, strict)
	if err != nil {
		return rep, classify(err)
	}
	markers, err := drift.MarkerIssues(r, name)
	if err != nil {
		return rep, fmt.Errorf("look for conflict markers in change %q: %w", name, err)
	}
	if len(markers) > 0 {
		rep.Issues = append(markers, rep.Issues...)
		rep.Valid = false
	}
	if rep.Issues == nil {
		rep.Issues = []spec.Issue{}
	}
	return rep, nil
}

// errSpecUnread is a spec.md that is not a regular file in the
// repository: the real CLI reports how reading it failed.
var errSpecUnread = errors.New("spec.md cannot be read natively")

// specReport is spec.Root.ValidateSpec, a spec.md linked out of the
// repository refused (exit 6) and one that cannot be read otherwise
// errSpecUnread.
func specReport(r spec.Root, id string, strict bool) (spec.Report, error) {
	rep, err := r.ValidateSpec(id, strict)
	if errors.Is(err, spec.ErrOutside) {
		return rep, classify(err)
	}
	if err != nil {
		return rep, errSpecUnread
	}
	return rep, nil
}

// validateSpec is `validate ID` for spec ID as OpenSpec 1.13.2 answers
// it: an ID with a segment OpenSpec refuses is "invalid_item"; else the
// spec's report (--strict: a WARNING fails it too).
func validateSpec(c *cli.Context, r spec.Root, id string) error {
	for _, seg := range strings.Split(id, "/") {
		if p := folderNameProblem(seg, "Spec id"); p != "" {
			return itemRefusal(c, osStatus{Severity: "error", Code: "invalid_item", Message: p}, p)
		}
	}
	start := time.Now()
	rep, err := specReport(r, id, c.Bool("strict"))
	if errors.Is(err, errSpecUnread) {
		return passThrough(c, invocation(c))
	}
	if err != nil {
		return err
	}
	return writeValidateReport(c, r, "spec", id, rep, start)
}

// validateBulk is `validate --all|--changes|--specs` as OpenSpec 1.13.2
// answers it: every active change and every spec (nested ids too), in
// OpenSpec's order (its localeCompare of the ids), as its document
// (--json) or its text: "✓ TYPE/ID" on stdout, "✗ TYPE/ID" and the issues
// on stderr, the totals and the first failure's details command on
// stdout, after the "- Validating..." its spinner leaves on a stderr that
// is not a terminal (not with --no-interactive). Exit 1 when any item
// fails. A root OpenSpec would not take for bulk (the implicit one), an
// item that cannot be read natively, and --report or --archived run the
// real CLI.
func validateBulk(c *cli.Context) error {
	r, err := openOSRoot(c, true)
	if errors.Is(err, errRealCLI) || err == nil && r.Implicit {
		return passThrough(c, invocation(c))
	}
	if err != nil {
		return err
	}
	if err := warnConfig(c, r); err != nil {
		return err
	}
	all := c.Bool("all")
	changes, specs := all || c.Bool("changes"), all || c.Bool("specs")
	if !cliapp.JSON(c) && !c.Bool("no-interactive") {
		fmt.Fprintln(cliapp.Stderr(c), "- Validating...")
	}
	// Specs go first: OpenSpec sorts its results by id, stably, in the
	// order they completed, and a spec (one file read) completes before the
	// change of the same id (a directory walk) in all but large runs, where
	// its order varies from run to run.
	var items []osValidateItem
	if specs {
		summaries, err := r.ListSpecs()
		if err != nil {
			return classify(err)
		}
		for _, s := range summaries {
			start := time.Now()
			rep, err := specReport(r, s.ID, c.Bool("strict"))
			if errors.Is(err, errSpecUnread) {
				return passThrough(c, invocation(c))
			}
			if err != nil {
				return err
			}
			items = append(items, osValidateItem{ID: s.ID, Type: "spec", Valid: rep.Valid, Issues: rep.Issues, DurationMs: time.Since(start).Milliseconds()})
		}
	}
	var ids []string
	if changes {
		if ids, err = availableChanges(r); err != nil {
			return classify(err)
		}
	}
	for _, id := range ids {
		start := time.Now()
		rep, err := changeReport(r, id, c.Bool("strict"))
		if err != nil {
			return err
		}
		items = append(items, osValidateItem{ID: id, Type: "change", Valid: rep.Valid, Issues: rep.Issues, DurationMs: time.Since(start).Milliseconds()})
	}
	spec.SortLocale(items, func(i osValidateItem) string { return i.ID })
	var out osValidateReport
	out.Items = append([]osValidateItem{}, items...)
	out.Summary.ByType = map[string]osTally{}
	for _, typ := range []string{"change", "spec"} {
		if typ == "change" && !changes || typ == "spec" && !specs {
			continue
		}
		t := osTally{}
		for _, i := range items {
			if i.Type == typ {
				t = t.add(i.Valid)
			}
		}
		out.Summary.ByType[typ] = t
	}
	for _, i := range items {
		out.Summary.Totals = out.Summary.Totals.add(i.Valid)
	}
	out.Version, out.Root = "1.0", rootOf(r)
	if cliapp.JSON(c) {
		if err := writeOSJSON(c, out); err != nil {
			return err
		}
	} else if len(items) == 0 {
		_, err := fmt.Fprintln(c.App.Writer, "No items found to validate.")
		return err
	} else if err := writeBulk(c.App.Writer, cliapp.Stderr(c), out); err != nil {
		return err
	}
	if out.Summary.Totals.Failed > 0 {
		return cliapp.Silent(exitcode.Failure)
	}
	return nil
}

// add counts one more item, passed or failed.
func (t osTally) add(valid bool) osTally {
	t.Items++
	if valid {
		t.Passed++
	} else {
		t.Failed++
	}
	return t
}

// writeBulk is bulk validate's text, as OpenSpec prints it.
func writeBulk(stdout, stderr io.Writer, out osValidateReport) error {
	var first *osValidateItem
	for k, i := range out.Items {
		if i.Valid {
			if _, err := fmt.Fprintf(stdout, "✓ %s/%s\n", i.Type, i.ID); err != nil {
				return err
			}
		} else {
			if first == nil {
				first = &out.Items[k]
			}
			fmt.Fprintf(stderr, "✗ %s/%s\n", i.Type, i.ID)
		}
		for _, is := range i.Issues {
			fmt.Fprintf(stderr, "  %s [%s] %s: %s\n", issueMark(is.Level), is.Level, is.Path, is.Message)
		}
	}
	t := out.Summary.Totals
	if _, err := fmt.Fprintf(stdout, "Totals: %d passed, %d failed (%d items)\n", t.Passed, t.Failed, t.Items); err != nil {
		return err
	}
	if first != nil {
		_, err := fmt.Fprintf(stdout, "Details: openspec validate %s --type %s\n", first.ID, first.Type)
		return err
	}
	return nil
}
