package openspeccli

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/spec"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "Show a change or spec: a change's proposal or a spec, as OpenSpec's show does",
		ArgsUsage: "ITEM [--type change|spec] [OPENSPEC-FLAGS...]",
		Description: `"openspec show ITEM", natively for its text form (a change's proposal.md
or a spec's spec.md, as it is, on stdout) and for a spec's --json document
(the spec as OpenSpec's parser reads it: id, title, overview,
requirementCount, requirements with their scenarios' raw text, metadata,
root; filtered by --requirements, --no-scenarios and -r N, as OpenSpec's
skills call it) and a change's --json document (with or without
--deltas-only: id, title, deltaCount, the deltas of its delta specs as
OpenSpec's ChangeParser reads them, else its What Changes bullets, root);
ITEM resolved as OpenSpec 1.13.2 resolves it ("Unknown item" with the
nearest names, "Ambiguous item" for a change and a spec of one name, exit
1; --type decides). Every other form (--diff, no ITEM, a change without
proposal.md or without a Why section, a spec that does not parse, …) runs
the real OpenSpec CLI, as cli does. OpenSpec's own help: "jj-openspec show
-- --help".`,
		SkipFlagParsing: true,
		BashComplete:    completeChange,
		Action:          runShow,
	}
}

func runShow(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") {
		return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name)
	}
	sa, native := showArgs(args)
	if !native || cliapp.JSON(c) {
		return passThrough(c, append([]string{"show"}, args...))
	}
	r, err := openRoot(c)
	if err == nil {
		err = declaredStore(c, r) // a store: beside specs/ is warned about
	}
	if err != nil {
		return passThrough(c, append([]string{"show"}, args...))
	}
	if sa.json {
		// A spec, natively; a change, an unknown or ambiguous ITEM and
		// every refusal are the real CLI's.
		doc, err := showSpecJSON(r, sa)
		if errors.Is(err, errNotNative) {
			doc, err = showChangeJSON(r, sa)
		}
		switch {
		case errors.Is(err, spec.ErrOutside):
			return classify(err) // nothing read through the link: exit 6, naming it
		case err != nil:
			return passThrough(c, append([]string{"show"}, args...))
		}
		return writeOSJSON(c, doc)
	}
	typ, err := itemType(c, r, sa.name, sa.typ, "show")
	if err != nil || typ == "" {
		return err
	}
	file := filepath.Join(r.SpecsDir(), filepath.FromSlash(sa.name), "spec.md")
	if typ == "change" {
		file = filepath.Join(r.ChangeDir(sa.name), "proposal.md")
	}
	b, err := readShown(r, file)
	if errors.Is(err, spec.ErrOutside) {
		return classify(err)
	}
	if err != nil {
		// A change without proposal.md, a missing spec, a name that
		// leaves the tree: OpenSpec's own messages.
		return passThrough(c, append([]string{"show"}, args...))
	}
	// console.log(content): the file and one more newline.
	_, err = fmt.Fprintln(c.App.Writer, string(b))
	return err
}

// errNotNative is a show invocation jj-openspec leaves to the real CLI.
var errNotNative = errors.New("answered by the real OpenSpec CLI")

// showSpec are show's arguments jj-openspec answers itself.
type showSpec struct {
	name, typ   string
	json        bool
	noScenarios bool   // --no-scenarios or --requirements
	requirement string // -r N, --requirement N: 1-based
	deltasOnly  bool   // --deltas-only: a change's JSON, the same document
}

// showArgs reads show's arguments when jj-openspec answers them itself:
// one ITEM, optionally --type and --no-interactive, and with --json the
// spec filters --requirements, --no-scenarios and -r N; native is false
// for anything else (a change's flags, a flag given twice, a spec filter
// without --json).
func showArgs(args []string) (sa showSpec, native bool) {
	filters, seen := 0, map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		flag, value, hasValue := strings.Cut(a, "=")
		if strings.HasPrefix(a, "-") {
			if seen[flag] {
				return showSpec{}, false
			}
			seen[flag] = true
		}
		switch {
		case a == "--no-interactive":
		case a == "--json":
			sa.json = true
		case a == "--deltas-only":
			sa.deltasOnly = true
		case a == "--no-scenarios" || a == "--requirements":
			sa.noScenarios = true
			filters++
		case a == "--type" || a == "-r" || a == "--requirement":
			if i+1 >= len(args) {
				return showSpec{}, false
			}
			i++
			if a == "--type" {
				sa.typ = args[i]
			} else {
				sa.requirement = args[i]
				filters++
			}
		case hasValue && flag == "--type":
			sa.typ = value
		case hasValue && flag == "--requirement":
			sa.requirement = value
			filters++
		case strings.HasPrefix(a, "-") || sa.name != "":
			return showSpec{}, false
		default:
			sa.name = a
		}
	}
	if (filters > 0 || sa.deltasOnly) && !sa.json || seen["--requirements"] && sa.requirement != "" {
		return showSpec{}, false
	}
	return sa, sa.name != ""
}

// showSpecJSON is OpenSpec 1.13.2's "show ITEM --json" for an ITEM that
// is a spec (and, without --type spec, not a change too): the spec as its
// MarkdownParser reads it, filtered by --requirements, --no-scenarios and
// -r N. Anything else is errNotNative, which the real CLI answers, or a
// link out of the repository (spec.ErrOutside), which nothing reads.
func showSpecJSON(r spec.Root, sa showSpec) (any, error) {
	if sa.deltasOnly {
		return nil, errNotNative // a change's flag: OpenSpec warns
	}
	switch strings.ToLower(sa.typ) {
	case "spec":
	case "":
		if changes, err := availableChanges(r); err != nil || slices.Contains(changes, sa.name) {
			return nil, errNotNative
		}
	default:
		return nil, errNotNative
	}
	if folderNameProblem(sa.name, "Spec id") != "" { // nested ids and the rest: the real CLI's
		return nil, errNotNative
	}
	b, err := readShown(r, filepath.Join(r.SpecsDir(), sa.name, "spec.md"))
	if errors.Is(err, spec.ErrOutside) {
		return nil, err
	}
	if err != nil {
		return nil, errNotNative
	}
	parsed, err := spec.ParseSpec(sa.name, string(b))
	if err != nil {
		return nil, errNotNative
	}
	reqs := parsed.Requirements
	if sa.requirement != "" {
		n, err := strconv.Atoi(sa.requirement)
		if err != nil || n < 1 || n > len(reqs) {
			return nil, errNotNative
		}
		reqs = reqs[n-1 : n]
	}
	out := make([]osRequirement, len(reqs))
	for i, q := range reqs {
		out[i] = requirementOf(q, !sa.noScenarios)
	}
	return ordered{{"id", sa.name}, {"title", parsed.Name}, {"overview", parsed.Overview},
		{"requirementCount", len(out)}, {"requirements", out},
		{"metadata", ordered{{"version", "1.0.0"}, {"format", "openspec"}}}, {"root", rootOf(r)}}, nil
}

// showChangeJSON is OpenSpec 1.13.2's "show ITEM --json" (and
// --deltas-only, the same document) for an ITEM that is a change (and,
// without --type change, not a spec too): its title and its deltas as
// OpenSpec's ChangeParser reads them. Anything else is errNotNative; a
// link out of the repository is spec.ErrOutside.
func showChangeJSON(r spec.Root, sa showSpec) (any, error) {
	if sa.noScenarios || sa.requirement != "" || folderNameProblem(sa.name, "Change id") != "" {
		return nil, errNotNative // a spec's filters (OpenSpec warns), or a name OpenSpec refuses
	}
	switch strings.ToLower(sa.typ) {
	case "change":
	case "":
		changes, err := availableChanges(r)
		if err != nil || !slices.Contains(changes, sa.name) || isSpecID(r, sa.name) {
			return nil, errNotNative // unknown or ambiguous: OpenSpec's refusals
		}
	default:
		return nil, errNotNative
	}
	doc, err := r.ReadChangeDoc(sa.name)
	if errors.Is(err, spec.ErrOutside) {
		return nil, err
	}
	if err != nil {
		return nil, errNotNative
	}
	deltas := make([]ordered, len(doc.Deltas))
	for i, d := range doc.Deltas {
		deltas[i] = ordered{{"spec", d.Spec}, {"operation", d.Operation}, {"description", d.Description}}
		switch {
		case d.Requirement != nil:
			q := requirementOf(*d.Requirement, true)
			deltas[i] = append(deltas[i], field{"requirement", q}, field{"requirements", []osRequirement{q}})
		case d.Rename != nil:
			deltas[i] = append(deltas[i], field{"rename", ordered{{"from", d.Rename.From}, {"to", d.Rename.To}}})
		}
	}
	return ordered{{"id", sa.name}, {"title", doc.Title}, {"deltaCount", len(deltas)},
		{"deltas", deltas}, {"root", rootOf(r)}}, nil
}

// osRequirement is a requirement in OpenSpec's JSON documents.
type osRequirement struct {
	Text      string       `json:"text"`
	Scenarios []osScenario `json:"scenarios"`
}

type osScenario struct {
	RawText string `json:"rawText"`
}

// requirementOf is q as OpenSpec writes it, with or without its
// scenarios (an empty list, never null).
func requirementOf(q spec.Requirement, scenarios bool) osRequirement {
	out := osRequirement{Text: q.Text, Scenarios: []osScenario{}}
	if scenarios {
		for _, s := range q.Scenarios {
			out.Scenarios = append(out.Scenarios, osScenario{s})
		}
	}
	return out
}

// readShown reads a regular file inside the OpenSpec tree, through no
// symbolic link out of the repository, as text (spec.Root.ReadText).
func readShown(r spec.Root, file string) ([]byte, error) {
	rel, err := filepath.Rel(r.OpenSpecDir(), file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%q is outside %s", file, r.OpenSpecDir())
	}
	return r.ReadText(file)
}
