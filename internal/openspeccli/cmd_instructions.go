package openspeccli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/openspec"
	"github.com/specstack/specstack/spec"
)

func instructionsCommand() *cli.Command {
	return &cli.Command{
		Name:      "instructions",
		Usage:     "Output enriched instructions for creating an artifact or applying tasks, as OpenSpec's instructions does",
		ArgsUsage: "[ARTIFACT] --change NAME [OPENSPEC-FLAGS...]",
		Description: `"openspec instructions ARTIFACT --change NAME --json", the form OpenSpec's
skills and status's next steps call, natively for the built-in
spec-driven schema: the artifact's description, instruction and template
as the installed OpenSpec CLI's package holds them, config.yaml's
context, its dependencies (done or not) and what it unlocks, OpenSpec
1.13.2's document byte for byte. "instructions apply --change NAME
--json" (what the apply skill reads first: the context files, task
progress, the tasks with text, the state — ready, blocked or all_done —
with its instruction, missing artifacts and prerequisites, warnings about
delta specs, config.yaml's context and operations.apply guidance) and
"instructions archive --change NAME --json" (context and
operations.archive guidance) likewise. Every other form (the text
envelopes, --schema, a project or user schema, config rules for an
artifact, references or anything OpenSpec would warn about, a skipped
artifact, an unknown change or artifact, …) runs the real OpenSpec CLI,
as cli does. OpenSpec's own help: "jj-openspec instructions -- --help".`,
		SkipFlagParsing: true,
		Action:          runInstructions,
	}
}

func runInstructions(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") {
		return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name)
	}
	pass := func() error { return passThrough(c, append([]string{"instructions"}, args...)) }
	r, err := openRoot(c)
	if err != nil || r.Implicit {
		return pass()
	}
	// A change folder linked out of the repository: the real CLI would
	// read through it, in any form. Exit 6, naming it.
	for i, a := range args {
		name, ok := strings.CutPrefix(a, "--change=")
		if a == "--change" && i+1 < len(args) {
			name, ok = args[i+1], true
		}
		if ok && name != "" {
			if err := r.ChangeLinkedOut(name); err != nil {
				return classify(err)
			}
		}
	}
	artifact, change, ok := instructionsArgs(args)
	if !ok {
		return pass()
	}
	var doc any
	switch artifact {
	case "apply":
		doc, err = applyInstructionsJSON(r, change)
	case "archive":
		doc, err = archiveInstructionsJSON(r, change)
	default:
		doc, err = instructionsJSON(r, artifact, change)
	}
	switch {
	case errors.Is(err, spec.ErrOutside):
		return classify(err) // nothing read through the link: exit 6, naming it
	case err != nil:
		return pass()
	}
	return writeOSJSON(c, doc)
}

// instructionsArgs reads ARTIFACT --change NAME --json (in any order,
// --change=NAME too); ok is false for anything else.
func instructionsArgs(args []string) (artifact, change string, ok bool) {
	asJSON := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--json" && !asJSON:
			asJSON = true
		case a == "--change" && change == "" && i+1 < len(args):
			i++
			change = args[i]
		case strings.HasPrefix(a, "--change=") && change == "":
			change = strings.TrimPrefix(a, "--change=")
		case !strings.HasPrefix(a, "-") && artifact == "":
			artifact = a
		default:
			return "", "", false
		}
	}
	return artifact, change, asJSON && artifact != "" && change != ""
}

// instructionsJSON is OpenSpec 1.13.2's instructions document for
// artifact of change (spec.Root.Instructions reads it), or errNotNative
// for what the real CLI answers.
func instructionsJSON(r spec.Root, artifact, change string) (any, error) {
	context, plain, err := r.InstructionsContext()
	if errors.Is(err, spec.ErrOutside) {
		return nil, err // config.yaml linked out of the repository: read by no one
	}
	if !plain {
		return nil, errNotNative // rules, references, warnings: the real CLI's
	}
	dir, err := builtinSchemaDir(r, change)
	if err != nil {
		return nil, err
	}
	in, err := r.Instructions(change, artifact, dir)
	if errors.Is(err, spec.ErrOutside) {
		return nil, err
	}
	if err != nil {
		return nil, errNotNative
	}
	root := rootOf(r)
	home := planningHomeOf(root)
	changeDir := filepath.Join(home.ChangesDir, change)
	paths := artifactPathOf(changeDir, in.Status)
	deps := []ordered{}
	for _, d := range in.Requires {
		o := ordered{{"id", d.ID}, {"done", d.Done}, {"path", d.Path}, {"description", d.Description}}
		if d.Skipped {
			o = append(o, field{"skipped", true})
		}
		deps = append(deps, o)
	}
	doc := ordered{{"changeName", change}, {"artifactId", artifact}, {"schemaName", in.Schema},
		{"changeDir", changeDir}, {"planningHome", home}, {"outputPath", paths.OutputPath},
		{"resolvedOutputPath", paths.ResolvedOutputPath}, {"existingOutputPaths", paths.ExistingOutputPaths},
		{"description", in.Artifact.Description}}
	if in.Artifact.Instruction != nil { // JSON.stringify leaves an undefined key out
		doc = append(doc, field{"instruction", *in.Artifact.Instruction})
	}
	if context != "" {
		doc = append(doc, field{"context", context})
	}
	return append(doc, field{"template", in.Template}, field{"dependencies", deps},
		field{"unlocks", append([]string{}, in.Unlocks...)}, field{"root", root}), nil
}

// builtinSchemaDir is the installed OpenSpec CLI's spec-driven schema,
// when instructions for change can be read natively: no store, an
// existing change that is not nested, no user schema of that name;
// errNotNative otherwise.
func builtinSchemaDir(r spec.Root, change string) (string, error) {
	if !plainChange(r, change) || userSchema(spec.SpecDriven.Name) {
		return "", errNotNative
	}
	dir, err := openspec.SchemaDir(spec.SpecDriven.Name, openspecVersion)
	if err != nil {
		return "", errNotNative
	}
	return dir, nil
}

// plainChange reports whether change is one the instructions verbs read
// natively: an existing change, not a namespace folder, in a root that
// declares no store.
func plainChange(r spec.Root, change string) bool {
	_, _, store := r.StoreDeclared()
	return !store && lookupChange(r, change) == nil && r.NestedChanges(change) == nil
}

// userSchema reports whether the user's OpenSpec data directory holds a
// schema of this name, which OpenSpec prefers to its built-in one.
func userSchema(name string) bool {
	data, err := config.XDGDir("XDG_DATA_HOME", ".local/share")
	if err != nil {
		return true // cannot tell: the real CLI decides
	}
	_, err = os.Stat(filepath.Join(data, "openspec", "schemas", name, "schema.yaml"))
	return !errors.Is(err, os.ErrNotExist)
}
