package openspeccli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
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
1.13.2's document byte for byte. Every other form (the text envelope,
"instructions apply", --schema, a project or user schema, config rules
or references, a skipped artifact, an unknown change or artifact, …) runs
the real OpenSpec CLI, as cli does. OpenSpec's own help: "jj-openspec
instructions -- --help".`,
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
	artifact, change, ok := instructionsArgs(args)
	if !ok {
		return pass()
	}
	r, err := openRoot(c)
	if err != nil || r.Implicit {
		return pass()
	}
	doc, err := instructionsJSON(r, artifact, change)
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
	json := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--json" && !json:
			json = true
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
	return artifact, change, json && artifact != "" && change != "" && artifact != "apply"
}

// instructionsJSON is OpenSpec 1.13.2's instructions document for
// artifact of change, or errNotNative for what the real CLI answers.
func instructionsJSON(r spec.Root, artifact, change string) (any, error) {
	if _, _, declared := r.StoreDeclared(); declared {
		return nil, errNotNative
	}
	context, plain, err := r.InstructionsContext()
	if errors.Is(err, spec.ErrOutside) {
		return nil, err // config.yaml linked out of the repository: read by no one
	}
	if !plain || len(context) > 50<<10 {
		return nil, errNotNative // rules, references, warnings: the real CLI's
	}
	if lookupChange(r, change) != nil || r.NestedChanges(change) != nil {
		return nil, errNotNative
	}
	if fi, err := os.Lstat(r.ChangeDir(change)); err != nil || !fi.IsDir() {
		return nil, errNotNative // a linked change directory: the real CLI's
	}
	st, err := r.Status(change)
	if errors.Is(err, spec.ErrOutside) {
		return nil, err
	}
	if err != nil || st.Schema != "spec-driven" || st.Source != "built-in" || userSchema(st.Schema) {
		return nil, errNotNative
	}
	dir, err := builtinSchemaDir(st.Schema)
	if err != nil {
		return nil, errNotNative
	}
	raw, err := os.ReadFile(filepath.Join(dir, "schema.yaml"))
	if err != nil {
		return nil, errNotNative
	}
	s, err := spec.ParseSchema(st.Schema, filepath.Join(dir, "schema.yaml"), raw)
	if err != nil {
		return nil, errNotNative
	}
	i := slices.IndexFunc(s.Artifacts, func(a spec.Artifact) bool { return a.ID == artifact })
	j := slices.IndexFunc(st.Artifacts, func(a spec.ArtifactStatus) bool { return a.ID == artifact })
	// OpenSpec's skipped: a specs artifact of a skip_specs change that has
	// no files (with files it is done); counted done all the same.
	skipped := func(a spec.ArtifactStatus) bool { return a.Skipped && len(a.Files) == 0 }
	if i < 0 || j < 0 || skipped(st.Artifacts[j]) || len(s.Artifacts) != len(st.Artifacts) {
		return nil, errNotNative // unknown or skipped: the real CLI says so
	}
	a := s.Artifacts[i]
	if a.Template == "" || strings.Contains(a.Template, "..") || filepath.IsAbs(a.Template) {
		return nil, errNotNative
	}
	template, err := os.ReadFile(filepath.Join(dir, "templates", a.Template))
	if err != nil {
		return nil, errNotNative
	}
	done, skip := map[string]bool{}, map[string]bool{}
	files := map[string][]string{}
	for _, as := range st.Artifacts {
		done[as.ID], skip[as.ID] = as.Done, skipped(as)
		files[as.ID] = as.Files
	}
	root := rootOf(r)
	changes := filepath.Join(root.Path, "openspec", "changes")
	changeDir := filepath.Join(changes, change)
	existing := []string{}
	for _, f := range files[a.ID] {
		existing = append(existing, filepath.Join(changeDir, filepath.FromSlash(f)))
	}
	deps := []ordered{}
	for _, id := range a.Requires {
		d := ordered{{"id", id}, {"done", done[id]}, {"path", id}, {"description", ""}}
		if k := slices.IndexFunc(s.Artifacts, func(x spec.Artifact) bool { return x.ID == id }); k >= 0 {
			d[2].Value, d[3].Value = s.Artifacts[k].Generates, s.Artifacts[k].Description
		}
		if skip[id] {
			d = append(d, field{"skipped", true})
		}
		deps = append(deps, d)
	}
	unlocks := []string{}
	for _, x := range s.Artifacts {
		if slices.Contains(x.Requires, a.ID) {
			unlocks = append(unlocks, x.ID)
		}
	}
	doc := ordered{{"changeName", change}, {"artifactId", a.ID}, {"schemaName", st.Schema},
		{"changeDir", changeDir},
		{"planningHome", ordered{{"kind", "repo"}, {"root", root.Path}, {"changesDir", changes}, {"defaultSchema", "spec-driven"}}},
		{"outputPath", a.Generates}, {"resolvedOutputPath", filepath.Join(changeDir, a.Generates)},
		{"existingOutputPaths", existing}, {"description", a.Description}}
	if a.Instruction != nil {
		doc = append(doc, field{"instruction", *a.Instruction})
	}
	if context != "" {
		doc = append(doc, field{"context", context})
	}
	return append(doc, field{"template", string(template)}, field{"dependencies", deps},
		field{"unlocks", unlocks}, field{"root", root}), nil
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

// builtinSchemaDir is schema name's directory in the OpenSpec package
// the real CLI on PATH runs from, when that package is the release
// jj-openspec stands in for.
func builtinSchemaDir(name string) (string, error) {
	bin, err := openspec.Path()
	if err != nil {
		return "", err
	}
	entry, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", err
	}
	pkg := filepath.Dir(filepath.Dir(entry)) // PKG/bin/openspec.js
	raw, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return "", err
	}
	var meta struct{ Name, Version string }
	if err := json.Unmarshal(raw, &meta); err != nil || meta.Name != "@fission-ai/openspec" || meta.Version != openspecVersion {
		return "", errNotNative
	}
	return filepath.Join(pkg, "schemas", name), nil
}
