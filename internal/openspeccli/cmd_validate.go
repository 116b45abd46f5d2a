package openspeccli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/editdist"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:         "validate",
		Usage:        "Validate changes and specs: a change's delta specs and tasks with OpenSpec's rules",
		ArgsUsage:    "[ITEM]",
		BashComplete: completeChange,
		Description: `"openspec validate ITEM" for a change, natively, as OpenSpec 1.13.2 answers
it: the change-delta rules (delta sections and requirement blocks,
scenarios, SHALL/MUST, duplicates and cross-section conflicts, RENAMED
pairs, MODIFIED blocks that would drop a scenario of the main spec, deltas
archive would refuse (INFO), and the task file checks); beyond OpenSpec,
unresolved conflict markers (which a conflicting rebase writes) are an
ERROR each, with file and line. Issues carry OpenSpec's levels (ERROR,
WARNING, INFO).

Output as OpenSpec's: "Change 'ITEM' is valid" on stdout, or "… has issues"
on stderr with each issue marked (✗ ERROR, ⚠ WARNING, ℹ INFO) and its
"Next steps:"; --json prints its document {items: [{id, type, valid,
issues, durationMs}], summary: {totals, byType}, version, root}. An ITEM
that is both a change and a spec is "Ambiguous item" (pass --type); an
unknown one "Unknown item" with the nearest names. Exits 1 when invalid
(an ERROR, or with --strict a WARNING), as OpenSpec does. With no
OpenSpec root here or above, the directory is OpenSpec's implicit root.

A spec ITEM (openspec/specs/ITEM/spec.md, nested ids too, or --type
spec) natively too, with OpenSpec's spec rules: the Purpose and
Requirements sections, requirement text and scenarios, layout problems
(requirements outside their section, duplicates, delta headers), a
Purpose that is a placeholder (archive's generated sentence, a TBD or
TODO marker) or too brief, requirements over 500 characters, SHALL/MUST
in each requirement's body; "Specification 'ITEM' is valid" or its
issues and next steps, as OpenSpec prints them.

--all, --changes and --specs validate every active change and every
spec natively: OpenSpec's document {items (ordered by id as OpenSpec
orders them), summary, version, root}, or its text ("✓ change/ID" on
stdout, "✗ spec/ID" and the issues on stderr, "Totals: …" and the first
failure's "Details: …" command), exit 1 when any fails. No ITEM,
--archived and --report run the real OpenSpec CLI (as cli does);
--concurrency is accepted (jj-openspec validates in one pass), and
--no-interactive leaves out the "- Validating..." line OpenSpec's
spinner leaves on stderr.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "strict", Usage: "treat warnings as errors"},
			&cli.StringFlag{Name: "type", Usage: "what ITEM is when it names both a change and a spec: `change` or spec"},
			&cli.BoolFlag{Name: "all", Usage: "validate every change and spec"},
			&cli.BoolFlag{Name: "changes", Usage: "validate every change"},
			&cli.BoolFlag{Name: "specs", Usage: "validate every spec"},
			&cli.BoolFlag{Name: "archived", Usage: "check the archived changes' tasks (runs the real OpenSpec CLI)"},
			&cli.StringFlag{Name: "report", Usage: "bulk report content, `full` or findings (runs the real OpenSpec CLI)"},
			&cli.StringFlag{Name: "concurrency", Usage: "OpenSpec's bulk concurrency `N` (accepted)"},
			&cli.BoolFlag{Name: "no-interactive", Usage: "never prompt (jj-openspec never does)"},
		},
		Action: runValidate,
	}
}

// osValidateItem is one item of OpenSpec's validate --json document.
type osValidateItem struct {
	ID         string       `json:"id"`
	Type       string       `json:"type"`
	Valid      bool         `json:"valid"`
	Issues     []spec.Issue `json:"issues"`
	DurationMs int64        `json:"durationMs"`
}

type osTally struct {
	Items  int `json:"items"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// osValidateReport is OpenSpec 1.13.2's validate --json document.
type osValidateReport struct {
	Items   []osValidateItem `json:"items"`
	Summary struct {
		Totals osTally            `json:"totals"`
		ByType map[string]osTally `json:"byType"`
	} `json:"summary"`
	Version string   `json:"version"`
	Root    listRoot `json:"root"`
}

func runValidate(c *cli.Context) error {
	args, err := cliapp.Args(c)
	if err != nil {
		return err
	}
	if c.Bool("archived") || c.IsSet("report") {
		return passThrough(c, invocation(c))
	}
	if c.Bool("all") || c.Bool("changes") || c.Bool("specs") {
		return validateBulk(c)
	}
	if len(args) != 1 {
		return passThrough(c, invocation(c))
	}
	return withOSRoot(c, true, func(r spec.Root) error { return validateItem(c, r, args[0]) })
}

// validateItem is "validate ITEM": a change or a spec, as OpenSpec
// resolves the name.
func validateItem(c *cli.Context, r spec.Root, name string) error {
	typ, err := itemType(c, r, name, c.String("type"), "validate")
	if err != nil || typ == "" {
		return err
	}
	if p := folderNameProblem(name, "Change name"); typ == "change" && p != "" {
		return itemRefusal(c, osStatus{Severity: "error", Code: "invalid_item", Message: p}, p)
	}
	if typ == "spec" {
		return validateSpec(c, r, name)
	}
	if !isChangeDir(r, name) {
		return passThrough(c, invocation(c))
	}
	start := time.Now()
	rep, err := changeReport(r, name, c.Bool("strict"))
	if err != nil {
		return err
	}
	return writeValidateReport(c, r, "change", name, rep, start)
}

// writeValidateReport prints validate's report of one item (typ change or
// spec) as OpenSpec does (--json: its document, timed from start; else
// its text), exiting 1 when it is not valid.
func writeValidateReport(c *cli.Context, r spec.Root, typ, name string, rep spec.Report, start time.Time) error {
	if cliapp.JSON(c) {
		var out osValidateReport
		out.Items = []osValidateItem{{ID: name, Type: typ, Valid: rep.Valid, Issues: rep.Issues, DurationMs: time.Since(start).Milliseconds()}}
		t := osTally{Items: 1, Passed: 1}
		if !rep.Valid {
			t = osTally{Items: 1, Failed: 1}
		}
		out.Summary.Totals = t
		out.Summary.ByType = map[string]osTally{typ: t}
		out.Version, out.Root = "1.0", rootOf(r)
		if err := writeOSJSON(c, out); err != nil {
			return err
		}
	} else if err := writeValidate(c.App.Writer, cliapp.Stderr(c), typ, name, rep); err != nil {
		return err
	}
	if !rep.Valid {
		return cliapp.Silent(exitcode.Failure)
	}
	return nil
}

// itemType is how OpenSpec's validate and show (verb) resolve ITEM: its
// type (typ, from --type, else what it names), or "" after printing
// OpenSpec's refusal of an unknown or ambiguous item (and an error
// exiting 1).
func itemType(c *cli.Context, r spec.Root, name, typ, verb string) (string, error) {
	changes, err := availableChanges(r)
	if err != nil {
		return "", err
	}
	sort.Strings(changes)
	// A spec is openspec/specs/ID/spec.md, a file; the whole list (which
	// reads every spec) only for an unknown ITEM's suggestions.
	isSpec := isSpecID(r, name)
	isChange := slices.Contains(changes, name)
	typ = strings.ToLower(typ)
	if typ != "change" && typ != "spec" {
		typ = ""
	}
	override := typ != ""
	if !override {
		switch {
		case isChange:
			typ = "change"
		case isSpec:
			typ = "spec"
		default:
			summaries, err := r.ListSpecs()
			if err != nil {
				return "", classify(err)
			}
			var specs []string
			for _, s := range summaries {
				specs = append(specs, s.ID)
			}
			msg := fmt.Sprintf("Unknown item '%s'.", name)
			if m := nearestMatches(name, append(changes, specs...), 5); len(m) > 0 {
				msg = fmt.Sprintf("Unknown item '%s'. Did you mean: %s?", name, strings.Join(m, ", "))
			}
			return "", itemRefusal(c, osStatus{Severity: "error", Code: "unknown_item", Message: msg}, msg)
		}
	}
	if !override && isChange && isSpec {
		msg := fmt.Sprintf("Ambiguous item '%s' matches both a change and a spec.", name)
		return "", itemRefusal(c, osStatus{Severity: "error", Code: "ambiguous_item", Message: msg, Fix: "Pass --type change|spec."},
			fmt.Sprintf("%s\nPass --type change|spec, or use: openspec change %s / openspec spec %s", msg, verb, verb))
	}
	return typ, nil
}

// isSpecID reports whether name is a spec: openspec/specs/ID/spec.md,
// a regular file.
func isSpecID(r spec.Root, name string) bool {
	fi, err := os.Stat(filepath.Join(r.SpecsDir(), filepath.FromSlash(name), "spec.md"))
	return err == nil && fi.Mode().IsRegular() && !slices.Contains(strings.Split(name, "/"), "..")
}

// itemRefusal prints validate's or show's refusal as OpenSpec does: {status:
// [st]} on stdout with --json, else text on stderr; exit 1.
func itemRefusal(c *cli.Context, st osStatus, text string) error {
	if cliapp.JSON(c) {
		if err := writeOSJSON(c, struct {
			Status []osStatus `json:"status"`
		}{[]osStatus{st}}); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(cliapp.Stderr(c), text)
	}
	return cliapp.Silent(exitcode.Failure)
}

// nearestMatches is OpenSpec's: the max candidates nearest to input by
// edit distance, ties in the candidates' order.
func nearestMatches(input string, candidates []string, max int) []string {
	type scored struct {
		s string
		d int
	}
	all := make([]scored, len(candidates))
	for i, s := range candidates {
		all[i] = scored{s, levenshtein(input, s)}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].d < all[j].d })
	var out []string
	for i := 0; i < len(all) && i < max; i++ {
		out = append(out, all[i].s)
	}
	return out
}

// levenshtein is the edit distance of a and b in UTF-16 units, as
// OpenSpec's (over JavaScript strings) counts it: "ééé" is 3 from "x"'s
// neighbours, not 6.
func levenshtein(a, b string) int {
	return editdist.Levenshtein(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// writeValidate prints a change's report as OpenSpec's validate does.
func writeValidate(stdout, stderr io.Writer, typ, name string, rep spec.Report) error {
	noun := "Change"
	if typ == "spec" {
		noun = "Specification"
	}
	if rep.Valid {
		if _, err := fmt.Fprintf(stdout, "%s '%s' is valid\n", noun, name); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stderr, "%s '%s' has issues\n", noun, name)
	}
	var b strings.Builder
	for _, i := range rep.Issues {
		// The path alone, as OpenSpec prints it (a line is in --json).
		fmt.Fprintf(&b, "%s [%s] %s: %s\n", issueMark(i.Level), i.Level, i.Path, i.Message)
	}
	if !rep.Valid {
		b.WriteString("Next steps:\n")
		steps := []string{"- Ensure spec includes ## Purpose and ## Requirements sections",
			"- Each requirement MUST include at least one #### Scenario: block",
			"- Re-run with --json to see structured report"}
		if typ == "change" {
			steps = validateNextSteps(name, rep.Issues)
		}
		for _, s := range steps {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	_, err := io.WriteString(stderr, b.String())
	return err
}

// validateNextSteps are OpenSpec's printNextSteps bullets for a change.
func validateNextSteps(name string, issues []spec.Issue) []string {
	has := func(sub string) bool {
		for _, i := range issues {
			if strings.Contains(i.Message, sub) {
				return true
			}
		}
		return false
	}
	switch {
	case has("is not a change: it is a folder wrapping"):
		return []string{"- Move each nested change directly under openspec/changes/, folding the namespace into its name",
			"- Only specs may be nested by domain; change directories are always flat"}
	case has("skip_specs is set in .openspec.yaml but spec files exist under specs/. Remove skip_specs or delete the delta spec files"):
		return []string{"- This change declares skip_specs (no spec deltas): delete the files under specs/, or remove skip_specs from .openspec.yaml if requirements do change",
			"- skip_specs is only honored when .openspec.yaml is valid change metadata (schema: <name> naming a known schema is required)"}
	case has("skip_specs is set but .openspec.yaml is not valid change metadata, so the marker is not honored. Fix the metadata"):
		return []string{"- Fix .openspec.yaml so the skip_specs marker can be honored (schema: <name> naming a known schema is required)",
			"- Or remove skip_specs from .openspec.yaml and add delta specs instead"}
	}
	return []string{"- Ensure change has deltas in specs/: use headers ## ADDED/MODIFIED/REMOVED/RENAMED Requirements",
		"- Each requirement MUST include at least one #### Scenario: block",
		"- Debug parsed deltas: openspec show " + name + " --json --deltas-only"}
}

// issueMark is OpenSpec's mark of an issue's level.
func issueMark(level string) string {
	switch level {
	case spec.LevelError:
		return "✗"
	case spec.LevelWarning:
		return "⚠"
	}
	return "ℹ"
}
