package openspeccli

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/specstack/specstack/spec"
)

// osTaskItem is one task of OpenSpec 1.13.2's apply instructions.
type osTaskItem struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Done        bool   `json:"done"`
}

// applyInstructionsJSON is OpenSpec 1.13.2's `instructions apply --change
// NAME --json` document (spec.Root.ApplyInstructions reads it), or
// errNotNative for what the real CLI answers.
func applyInstructionsJSON(r spec.Root, change string) (any, error) {
	context, guidance, err := operationInputs(r, "apply")
	if err != nil {
		return nil, err
	}
	dir, err := builtinSchemaDir(r, change)
	if err != nil {
		return nil, err
	}
	in, err := r.ApplyInstructions(change, dir)
	if errors.Is(err, spec.ErrOutside) {
		return nil, err
	}
	if err != nil {
		return nil, errNotNative
	}
	root := rootOf(r)
	changeDir := filepath.Join(planningHomeOf(root).ChangesDir, change)
	files := ordered{}
	for _, a := range in.Artifacts {
		if len(a.Files) > 0 {
			files = append(files, field{a.ID, artifactPathOf(changeDir, a).ExistingOutputPaths})
		}
	}
	tasks := []osTaskItem{}
	done := 0
	for _, t := range in.Tasks {
		if t.Checked {
			done++
		}
		if t.Text != "" {
			tasks = append(tasks, osTaskItem{strconv.Itoa(len(tasks) + 1), t.Text, t.Checked})
		}
	}
	doc := ordered{{"changeName", change}, {"changeDir", changeDir}, {"schemaName", in.Schema},
		{"contextFiles", files},
		{"progress", ordered{{"total", len(in.Tasks)}, {"complete", done}, {"remaining", len(in.Tasks) - done}}},
		{"tasks", tasks}, {"taskTrackingConfigured", in.Tracks != ""}, {"state", in.Step.State()}}
	if len(in.Missing) > 0 {
		doc = append(doc, field{"missingArtifacts", in.Missing})
	}
	if len(in.Prerequisites) > 0 {
		doc = append(doc, field{"missingPrerequisites", in.Prerequisites})
	}
	if w := applyWarnings(in, change, changeDir); len(w) > 0 {
		doc = append(doc, field{"warnings", w})
	}
	doc = append(doc, field{"instruction", applyInstruction(in, change)})
	return append(operationFields(doc, context, guidance), field{"root", root}), nil
}

// applyInstruction is OpenSpec's instruction for where apply stands.
func applyInstruction(in spec.ApplyInstructions, change string) string {
	schema := func(fallback string) string {
		if in.Instruction != nil {
			return *in.Instruction
		}
		return fallback
	}
	tracks := path.Base(strings.ReplaceAll(in.Tracks, `\`, "/"))
	switch in.Step {
	case spec.ApplyMissingArtifacts:
		chain := ""
		if len(in.Prerequisites) > len(in.Missing) {
			chain = "\nNot created yet, in build order: " + strings.Join(in.Prerequisites, ", ") + "." +
				" Build the ones this change needs before applying - the schema says which are conditional."
		}
		// Only one is named when one is left: the first of several would
		// be the schema's conditional artifact as often as not.
		target := ""
		if len(in.Prerequisites) == 1 {
			target = in.Prerequisites[0]
		}
		return "Cannot apply this change yet. Missing artifacts: " + strings.Join(in.Missing, ", ") + "." + chain +
			"\n" + artifactRemedy(change, target, len(in.Prerequisites) > 1)
	case spec.ApplyNoTasksFile:
		return fmt.Sprintf("The %s file is missing and must be created.\n%s", tracks, artifactRemedy(change, in.TracksArtifact, false))
	case spec.ApplyNoTasks:
		return fmt.Sprintf("The %s file exists but contains no tasks to work on.\nAdd tasks to %s, or rebuild it: %s", tracks, tracks, artifactRemedy(change, in.TracksArtifact, false))
	case spec.ApplyAllDone:
		return "All tasks are complete! This change is ready to be archived.\nConsider running tests and reviewing the changes before archiving."
	case spec.ApplyUntracked:
		return schema("All required artifacts complete. Proceed with implementation.")
	}
	return schema("Read context files, work through pending tasks, mark complete as you go.\nPause if you hit blockers or need clarification.")
}

// artifactRemedy is OpenSpec's describeArtifactRemedy: the command that
// builds one artifact (or each, with many).
func artifactRemedy(change, artifact string, many bool) string {
	verb := "Create it with"
	if many {
		verb = "Create each with"
	}
	if artifact == "" {
		artifact = "<artifact>"
	}
	return fmt.Sprintf("%s `openspec instructions %s --change %s` (`openspec status --change %s` shows what is left).", verb, artifact, change, change)
}

// applyWarnings is OpenSpec's collectApplyWarnings: delta files archive
// never reads, and a change with no delta spec that does not skip them.
func applyWarnings(in spec.ApplyInstructions, change, changeDir string) []string {
	var out []string
	for _, u := range in.UnreadDeltas {
		out = append(out, fmt.Sprintf("specs/%s is not a capability's spec.md, so `openspec validate %s` rejects it and archive never merges it. Move its requirements into specs/%s.", u.Path, change, u.Expected))
	}
	if in.NoDeltaSpecs {
		target := in.SpecArtifact
		if target == "" {
			target = "<artifact-id>"
		}
		out = append(out, fmt.Sprintf("This change has no delta specs and does not declare `skip_specs: true`, so `openspec validate %s` fails on it. "+
			"Write the delta specs before implementing (`openspec instructions %s --change %s`), "+
			"or add `skip_specs: true` to %s if this change really changes no specified behavior.", change, target, change, filepath.Join(changeDir, ".openspec.yaml")))
	}
	return out
}

// archiveInstructionsJSON is OpenSpec 1.13.2's `instructions archive
// --change NAME --json` document: the change, config.yaml's context and
// the archive operation's guidance; errNotNative for what the real CLI
// answers.
func archiveInstructionsJSON(r spec.Root, change string) (any, error) {
	context, guidance, err := operationInputs(r, "archive")
	if err != nil {
		return nil, err
	}
	if change == "archive" || !plainChange(r, change) {
		return nil, errNotNative
	}
	if fi, err := os.Lstat(r.ChangeDir(change)); err != nil || !fi.IsDir() {
		return nil, errNotNative // a change folder linked inside: the real CLI's to judge
	}
	return append(operationFields(ordered{{"changeName", change}}, context, guidance), field{"root", rootOf(r)}), nil
}

// operationInputs is config.yaml's context and op's guidance, errNotNative
// when the file says more than the instructions read natively, or the
// error reading it (ErrOutside for a link out of the repository).
func operationInputs(r spec.Root, op string) (string, []string, error) {
	context, guidance, plain, err := r.OperationInputs(op)
	if err != nil {
		return "", nil, err
	}
	if !plain {
		return "", nil, errNotNative
	}
	return context, guidance, nil
}

// operationFields appends OpenSpec's loadOperationInputs fields to doc.
func operationFields(doc ordered, context string, guidance []string) ordered {
	if context != "" {
		doc = append(doc, field{"context", context})
	}
	if len(guidance) > 0 {
		doc = append(doc, field{"operationGuidance", guidance})
	}
	return doc
}
