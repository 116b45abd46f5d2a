package openspeccli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:         "validate",
		Usage:        "check a change's delta specs and tasks with OpenSpec's rules",
		ArgsUsage:    "CHANGE",
		BashComplete: completeChange,
		Description: `Applies the change-delta rules of "openspec validate CHANGE": delta sections
and requirement blocks, scenarios, SHALL/MUST, duplicates and cross-section
conflicts, RENAMED pairs, MODIFIED blocks that would drop a scenario of the
main spec, deltas archive would refuse (INFO), and the task file checks;
beyond OpenSpec, unresolved conflict markers (which a conflicting rebase
writes) are an ERROR each, with file and line.
Issues carry OpenSpec's levels (ERROR, WARNING, INFO). Exits 6 (invalid)
when an ERROR is found, or with --strict a WARNING.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "strict", Usage: "treat warnings as errors"},
		},
		Action: runValidate,
	}
}

type validateReport struct {
	ID      string       `json:"id"`
	Type    string       `json:"type"`
	Valid   bool         `json:"valid"`
	Issues  []spec.Issue `json:"issues"`
	Summary struct {
		Errors   int `json:"errors"`
		Warnings int `json:"warnings"`
		Info     int `json:"info"`
	} `json:"summary"`
}

func runValidate(c *cli.Context) error {
	name, err := oneChange(c)
	if err != nil {
		return err
	}
	r, err := openRoot(c)
	if err != nil {
		return err
	}
	if err := warnConfig(c, r); err != nil {
		return err
	}
	rep, err := r.ValidateChange(name, spec.ValidateOptions{MainSpecs: true, Tasks: true}, c.Bool("strict"))
	if err != nil {
		return classify(err)
	}
	// Conflict markers a rebase left: OpenSpec would take them as text.
	markers, err := drift.MarkerIssues(r, name)
	if err != nil {
		return fmt.Errorf("look for conflict markers in change %q: %w", name, err)
	}
	if len(markers) > 0 {
		rep.Issues = append(markers, rep.Issues...)
		rep.Valid = false
	}
	out := validateReport{ID: rep.Change, Type: "change", Valid: rep.Valid, Issues: rep.Issues}
	out.Summary.Errors = rep.Count(spec.LevelError)
	out.Summary.Warnings = rep.Count(spec.LevelWarning)
	out.Summary.Info = rep.Count(spec.LevelInfo)
	if err := cliapp.Emit(c, out, func(w io.Writer) error { return writeValidate(w, rep) }); err != nil {
		return err
	}
	if !rep.Valid {
		return cliapp.Silent(exitcode.Invalid)
	}
	return nil
}

func writeValidate(w io.Writer, rep spec.Report) error {
	verdict := "is valid"
	if !rep.Valid {
		verdict = "has issues"
	}
	if _, err := fmt.Fprintf(w, "Change '%s' %s\n", rep.Change, verdict); err != nil {
		return err
	}
	for _, i := range rep.Issues {
		loc := i.Path
		if i.Line > 0 {
			loc = fmt.Sprintf("%s:%d", i.Path, i.Line)
		}
		if _, err := fmt.Fprintf(w, "[%s] %s: %s\n", i.Level, loc, i.Message); err != nil {
			return err
		}
	}
	return nil
}
