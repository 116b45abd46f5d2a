package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What OpenSpec 1.13's `instructions ARTIFACT --change NAME` hands an
// agent for one artifact of a change (its generateInstructions).

// ArtifactDep is an artifact the instructed one requires.
type ArtifactDep struct {
	ID, Path, Description string
	Done                  bool
	Skipped               bool // skip_specs counts it done (ArtifactStatus.SkippedEmpty)
}

// ArtifactInstructions is one artifact's instructions.
type ArtifactInstructions struct {
	Schema   string
	Artifact Artifact       // from the schema's schema.yaml, with its text
	Status   ArtifactStatus // its files, relative to the change
	Template string
	Requires []ArtifactDep
	Unlocks  []string // the artifacts that require it, in schema order
}

// Instructions reads artifact's instructions for change, whose schema
// must be the built-in one, from builtinDir (its schema.yaml and
// templates/: the installed OpenSpec package's). ErrNotRead for what
// OpenSpec answers another way: another schema, an unknown or skipped
// artifact, a linked change folder, a schema or template that cannot be
// read; ErrOutside for a link out of the repository.
func (r Root) Instructions(change, artifact, builtinDir string) (ArtifactInstructions, error) {
	notRead := func(why string) error {
		return fmt.Errorf("instructions %s for %q: %w: %s", artifact, change, ErrNotRead, why)
	}
	st, s, err := r.builtinSchema(change, builtinDir, notRead)
	if err != nil {
		return ArtifactInstructions{}, err
	}
	i := slices.IndexFunc(s.Artifacts, func(a Artifact) bool { return a.ID == artifact })
	j := slices.IndexFunc(st.Artifacts, func(a ArtifactStatus) bool { return a.ID == artifact })
	if i < 0 || j < 0 || len(s.Artifacts) != len(st.Artifacts) || st.Artifacts[j].SkippedEmpty() {
		return ArtifactInstructions{}, notRead("no such artifact, or a skipped one")
	}
	a := s.Artifacts[i]
	if a.Template == "" || strings.Contains(a.Template, "..") || filepath.IsAbs(a.Template) {
		return ArtifactInstructions{}, notRead("template " + a.Template)
	}
	tmpl, err := os.ReadFile(filepath.Join(builtinDir, "templates", a.Template))
	if err != nil {
		return ArtifactInstructions{}, notRead(err.Error())
	}
	in := ArtifactInstructions{Schema: st.Schema, Artifact: a, Status: st.Artifacts[j], Template: string(tmpl)}
	for _, id := range a.Requires {
		d := ArtifactDep{ID: id, Path: id}
		if k := slices.IndexFunc(s.Artifacts, func(x Artifact) bool { return x.ID == id }); k >= 0 {
			d.Path, d.Description = s.Artifacts[k].Generates, s.Artifacts[k].Description
		}
		if k := slices.IndexFunc(st.Artifacts, func(x ArtifactStatus) bool { return x.ID == id }); k >= 0 {
			d.Done, d.Skipped = st.Artifacts[k].Done, st.Artifacts[k].SkippedEmpty()
		}
		in.Requires = append(in.Requires, d)
	}
	for _, x := range s.Artifacts {
		if slices.Contains(x.Requires, a.ID) {
			in.Unlocks = append(in.Unlocks, x.ID)
		}
	}
	return in, nil
}

// builtinSchema is change's status and the built-in schema as builtinDir
// (the installed OpenSpec package's) holds it; notRead wraps ErrNotRead
// for a change whose schema is another, a missing or linked change
// folder, or a schema that cannot be read.
func (r Root) builtinSchema(change, builtinDir string, notRead func(string) error) (ChangeStatus, Schema, error) {
	if fi, err := os.Lstat(r.ChangeDir(change)); err != nil || !fi.IsDir() {
		if err := r.ChangeLinkedOut(change); err != nil {
			return ChangeStatus{}, Schema{}, err
		}
		return ChangeStatus{}, Schema{}, notRead("no change folder (or a link to one)")
	}
	st, err := r.Status(change)
	if err != nil {
		return ChangeStatus{}, Schema{}, err
	}
	if st.Schema != SpecDriven.Name || st.Source != SpecDriven.Source {
		return ChangeStatus{}, Schema{}, notRead("schema " + st.Schema + " is not the built-in one")
	}
	file := filepath.Join(builtinDir, "schema.yaml")
	raw, err := os.ReadFile(file)
	if err != nil {
		return ChangeStatus{}, Schema{}, notRead(err.Error())
	}
	s, err := ParseSchema(st.Schema, file, raw)
	if err != nil {
		return ChangeStatus{}, Schema{}, notRead(err.Error())
	}
	return st, s, nil
}
