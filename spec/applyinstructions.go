package spec

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/spec/internal/jstext"
	"github.com/specstack/specstack/spec/tasksmd"
)

// What OpenSpec 1.13's `instructions apply --change NAME` hands an agent
// about implementing a change (its generateApplyInstructions).

// ApplyStep is where apply stands for a change, the case OpenSpec's
// instruction is written for.
type ApplyStep int

const (
	ApplyMissingArtifacts ApplyStep = iota // blocked: artifacts apply requires have no files
	ApplyNoTasksFile                       // blocked: the tracked tasks file does not exist
	ApplyNoTasks                           // blocked: the tasks file lists no task with text
	ApplyAllDone                           // every task is ticked
	ApplyUntracked                         // ready: the schema tracks no tasks file
	ApplyTasks                             // ready: tasks to work through
)

// State is OpenSpec's name of the step: blocked, all_done or ready.
func (s ApplyStep) State() string {
	switch s {
	case ApplyAllDone:
		return "all_done"
	case ApplyUntracked, ApplyTasks:
		return "ready"
	}
	return "blocked"
}

// ApplyInstructions is what apply needs to know about a change.
type ApplyInstructions struct {
	Schema    string
	Artifacts []ArtifactStatus // the change's artifacts, in schema order, with their files
	Step      ApplyStep
	// Tracks is the schema's apply.tracks ("" when it tracks none), and
	// TracksArtifact the artifact that generates it ("" when none does).
	Tracks, TracksArtifact string
	// Tasks is every task line of the tracked files, in order; a line
	// without text counts toward progress but is no task to work on.
	Tasks []tasksmd.TaskLine
	// Missing are the artifacts apply requires that have no files;
	// Prerequisites everything still to build before apply, in build order.
	Missing, Prerequisites []string
	Instruction            *string // the schema's apply.instruction, trimmed as OpenSpec hands it out
	// UnreadDeltas are delta files under specs/ that are not a
	// capability's spec.md; NoDeltaSpecs: the change has no delta spec and
	// does not declare skip_specs. Both only once apply is not blocked.
	UnreadDeltas []UnreadDelta
	NoDeltaSpecs bool
	// SpecArtifact is the schema's spec-producing artifact, "" when it
	// has several.
	SpecArtifact string
}

// UnreadDelta is a markdown file with delta sections that archive never
// reads (not a capability's spec.md).
type UnreadDelta struct {
	Path     string // relative to the change's specs/, slash-separated
	Expected string // where its requirements belong, relative to specs/
}

// ApplyInstructions reads what apply needs of change, whose schema must be
// the built-in one, read from builtinDir (the installed OpenSpec
// package's). ErrNotRead for what OpenSpec answers another way (another
// schema, a linked change folder, a tasks or delta file that cannot be
// read); ErrOutside for a link out of the repository.
func (r Root) ApplyInstructions(change, builtinDir string) (ApplyInstructions, error) {
	notRead := func(why string) error {
		return fmt.Errorf("instructions apply for %q: %w: %s", change, ErrNotRead, why)
	}
	st, s, err := r.builtinSchema(change, builtinDir, notRead)
	if err != nil {
		return ApplyInstructions{}, err
	}
	if len(s.Artifacts) != len(st.Artifacts) {
		return ApplyInstructions{}, notRead("the package's schema is not the one status read")
	}
	in := ApplyInstructions{Schema: st.Schema, Artifacts: st.Artifacts, Tracks: s.ApplyTracks}
	if s.ApplyInstruction != nil {
		text := jstext.Trim(*s.ApplyInstruction)
		in.Instruction = &text
	}
	byID := map[string]ArtifactStatus{}
	for _, a := range st.Artifacts {
		byID[a.ID] = a
		if a.Generates == s.ApplyTracks && in.TracksArtifact == "" {
			in.TracksArtifact = a.ID
		}
	}
	for _, id := range s.ApplyRequires {
		if a, ok := byID[id]; ok && !a.SkippedEmpty() && len(a.Files) == 0 {
			in.Missing = append(in.Missing, id)
		}
	}
	in.Prerequisites = prerequisites(s.ApplyRequires, st.Artifacts, byID)
	dir := r.ChangeDir(change)
	var tracked []string
	if in.Tracks != "" {
		tracked = Outputs(dir, in.Tracks)
	}
	for _, f := range tracked {
		b, err := r.ReadText(f)
		if err != nil {
			return ApplyInstructions{}, notRead(err.Error())
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if t, ok := tasksmd.ParseTaskLine(line); ok {
				in.Tasks = append(in.Tasks, t)
			}
		}
	}
	listed, done := 0, 0
	for _, t := range in.Tasks {
		if t.Text != "" {
			listed++
		}
		if t.Checked {
			done++
		}
	}
	switch {
	case len(in.Missing) > 0:
		in.Step = ApplyMissingArtifacts
	case in.Tracks != "" && len(tracked) == 0:
		in.Step = ApplyNoTasksFile
	case in.Tracks != "" && listed == 0:
		in.Step = ApplyNoTasks
	case in.Tracks != "" && done == len(in.Tasks):
		in.Step = ApplyAllDone
	case in.Tracks == "":
		in.Step = ApplyUntracked
	default:
		in.Step = ApplyTasks
	}
	if in.Step.State() == "blocked" {
		return in, nil
	}
	var specArtifacts []ArtifactStatus
	for _, a := range st.Artifacts {
		if strings.HasPrefix(path.Clean(strings.ReplaceAll(a.Generates, `\`, "/")), "specs/") {
			specArtifacts = append(specArtifacts, a)
		}
	}
	if len(specArtifacts) == 0 || slices.ContainsFunc(specArtifacts, ArtifactStatus.SkippedEmpty) {
		return in, nil
	}
	unread, err := findUnreadDeltas(filepath.Join(dir, "specs"))
	if err != nil {
		return ApplyInstructions{}, notRead(err.Error())
	}
	in.UnreadDeltas = unread
	in.NoDeltaSpecs = !slices.ContainsFunc(specArtifacts, func(a ArtifactStatus) bool { return len(a.Files) > 0 })
	if len(specArtifacts) == 1 {
		in.SpecArtifact = specArtifacts[0].ID
	}
	return in, nil
}

// prerequisites is every artifact apply's requires reach (through their
// own requires) that is not complete, in build order: OpenSpec's
// collectMissingPrerequisites.
func prerequisites(requires []string, arts []ArtifactStatus, byID map[string]ArtifactStatus) []string {
	seen := map[string]bool{}
	queue := slices.Clone(requires)
	for _, id := range queue {
		seen[id] = true
	}
	missing := map[string]bool{}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		a, ok := byID[id]
		if !ok {
			continue
		}
		if !a.Done {
			missing[id] = true
		}
		for _, dep := range a.Requires {
			if !seen[dep] {
				seen[dep] = true
				queue = append(queue, dep)
			}
		}
	}
	var out []string
	for _, id := range BuildOrder(arts) {
		if missing[id] {
			out = append(out, id)
		}
	}
	return out
}
