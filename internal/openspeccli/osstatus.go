package openspeccli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/openspec"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
)

// osArtifact is one artifact of OpenSpec 1.13.2's status document.
type osArtifact struct {
	ID          string   `json:"id"`
	OutputPath  string   `json:"outputPath"`
	Status      string   `json:"status"` // done, ready, blocked or skipped
	Requires    []string `json:"requires"`
	MissingDeps []string `json:"missingDeps,omitempty"`
}

type osArtifactPath struct {
	OutputPath          string   `json:"outputPath"`
	ResolvedOutputPath  string   `json:"resolvedOutputPath"`
	ExistingOutputPaths []string `json:"existingOutputPaths"`
}

// ordered is a JSON object whose keys keep their order (OpenSpec's
// artifactPaths is keyed by artifact id in schema order).
type ordered []field

// field is one key of an ordered object.
type field = struct {
	Key   string
	Value any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // as JSON.stringify: <, > and & as they are
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(kv.Key); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(kv.Value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// osPlanningHome is where OpenSpec 1.13.2 says a change is planned:
// always the repository's openspec/changes here (stores are the real
// CLI's), whose root's default schema it always names spec-driven
// (makeRoot), whatever config.yaml's schema: names.
type osPlanningHome struct {
	Kind          string `json:"kind"`
	Root          string `json:"root"`
	ChangesDir    string `json:"changesDir"`
	DefaultSchema string `json:"defaultSchema"`
}

func planningHomeOf(root listRoot) osPlanningHome {
	return osPlanningHome{"repo", root.Path, filepath.Join(root.Path, "openspec", "changes"), "spec-driven"}
}

// artifactPathOf is OpenSpec's paths of artifact a of the change in
// changeDir: where it goes, resolved, and the files it has.
func artifactPathOf(changeDir string, a spec.ArtifactStatus) osArtifactPath {
	existing := []string{}
	for _, f := range a.Files {
		existing = append(existing, filepath.Join(changeDir, filepath.FromSlash(f)))
	}
	return osArtifactPath{a.Generates, filepath.Join(changeDir, a.Generates), existing}
}

// osStatusDoc is OpenSpec 1.13.2's `status --change NAME --json`.
type osStatusDoc struct {
	ChangeName         string         `json:"changeName"`
	SchemaName         string         `json:"schemaName"`
	PlanningHome       osPlanningHome `json:"planningHome"`
	ChangeRoot         string         `json:"changeRoot"`
	ArtifactPaths      ordered        `json:"artifactPaths"`
	IsPlanningComplete bool           `json:"isPlanningComplete"`
	IsComplete         bool           `json:"isComplete"`
	ApplyRequires      []string       `json:"applyRequires"`
	NextSteps          []string       `json:"nextSteps"`
	ActionContext      struct {
		Mode                          string   `json:"mode"`
		SourceOfTruth                 string   `json:"sourceOfTruth"`
		PlanningArtifacts             []string `json:"planningArtifacts"`
		LinkedContext                 []string `json:"linkedContext"`
		AllowedEditRoots              []string `json:"allowedEditRoots"`
		RequiresAffectedAreaSelection bool     `json:"requiresAffectedAreaSelection"`
		Constraints                   []string `json:"constraints"`
	} `json:"actionContext"`
	Artifacts []osArtifact `json:"artifacts"`
	Root      *listRoot    `json:"root,omitempty"` // nil in status --all's entries
	next      string       // the text's "Next:" command
}

// runOSStatus is `status --change NAME` as OpenSpec 1.13.2 answers it:
// its document (--json) or its text on stdout, refusals as its Error
// lines (after the "- Loading change status..." its spinner leaves on a
// stderr that is not a terminal), exit 1.
func runOSStatus(c *cli.Context, r spec.Root, name string) error {
	doc, err := osStatusOf(r, name)
	if errors.Is(err, spec.ErrOutside) {
		return classify(err) // nothing read through the link: exit 6, naming it
	}
	if errors.Is(err, errChangeUnread) {
		// Metadata or a schema specstack's reader words otherwise: the
		// real CLI's reader answers, in its words, when it is installed.
		if _, perr := openspec.Path(); perr == nil {
			return passThrough(c, invocation(c))
		}
	}
	if !cliapp.JSON(c) {
		fmt.Fprintln(cliapp.Stderr(c), "- Loading change status...")
	}
	if err != nil {
		return osFailure(c, err, func(st []osStatus) any {
			return struct {
				Status []osStatus `json:"status"`
			}{st}
		})
	}
	if cliapp.JSON(c) {
		return writeOSJSON(c, doc)
	}
	return writeOSStatus(c.App.Writer, doc)
}

// errChangeUnread marks a status refusal that comes from reading the
// change's metadata or schema, whose problems OpenSpec's own readers
// word (YAML and zod messages): the real CLI answers those.
var errChangeUnread = errors.New("the change's metadata or schema is read by the real CLI")

// osStatusOf builds OpenSpec's status document of change name, or a
// *specwrite.Blocked with OpenSpec's message.
func osStatusOf(r spec.Root, name string) (*osStatusDoc, error) {
	if err := lookupChange(r, name); err != nil {
		return nil, err
	}
	if nested := r.NestedChanges(name); nested != nil {
		return nil, &specwrite.Blocked{Code: "change_error", Message: spec.DescribeNested(name, nested)}
	}
	st, err := r.Status(name)
	if errors.Is(err, spec.ErrOutside) {
		return nil, err
	}
	if err != nil {
		return nil, errors.Join(errChangeUnread, &specwrite.Blocked{Code: "change_error", Message: err.Error()})
	}
	s, err := r.LoadSchema(st.Schema)
	if err != nil {
		return nil, errors.Join(errChangeUnread, &specwrite.Blocked{Code: "change_error", Message: err.Error()})
	}
	root := rootOf(r)
	d := &osStatusDoc{ChangeName: name, SchemaName: st.Schema, Root: &root, PlanningHome: planningHomeOf(root)}
	d.ChangeRoot = filepath.Join(d.PlanningHome.ChangesDir, name)

	decl := map[string]int{}
	completed := map[string]bool{}
	byID := map[string]spec.ArtifactStatus{}
	for i, a := range st.Artifacts {
		decl[a.ID] = i
		completed[a.ID] = a.Done // skipped artifacts count as complete
		byID[a.ID] = a
		d.ArtifactPaths = append(d.ArtifactPaths, field{a.ID, artifactPathOf(d.ChangeRoot, a)})
	}
	byDecl := func(ids []string) { sort.SliceStable(ids, func(i, j int) bool { return decl[ids[i]] < decl[ids[j]] }) }
	d.IsComplete = true
	for _, a := range st.Artifacts {
		d.IsComplete = d.IsComplete && completed[a.ID]
	}
	d.IsPlanningComplete = d.IsComplete
	d.ApplyRequires = s.ApplyRequires
	if d.ApplyRequires == nil {
		d.ApplyRequires = []string{}
	}
	for _, id := range spec.BuildOrder(st.Artifacts) {
		a := byID[id]
		oa := osArtifact{ID: id, OutputPath: a.Generates, Requires: a.Requires}
		if oa.Requires == nil {
			oa.Requires = []string{}
		}
		switch {
		case a.SkippedEmpty():
			oa.Status = "skipped"
		case a.Done:
			oa.Status = "done"
		default:
			for _, req := range a.Requires {
				if !completed[req] {
					oa.MissingDeps = append(oa.MissingDeps, req)
				}
			}
			oa.Status = "ready"
			if len(oa.MissingDeps) > 0 {
				oa.Status = "blocked"
				byDecl(oa.MissingDeps)
			}
		}
		d.Artifacts = append(d.Artifacts, oa)
	}
	d.NextSteps = []string{}
	for _, a := range d.Artifacts {
		if a.Status == "ready" {
			d.next = fmt.Sprintf(`openspec instructions %s --change "%s" --json`, a.ID, name)
			d.NextSteps = append(d.NextSteps, "Run "+d.next+" before writing that artifact.")
			break
		}
	}
	if d.next == "" && d.IsComplete {
		d.next = fmt.Sprintf(`openspec instructions apply --change "%s" --json`, name)
		d.NextSteps = append(d.NextSteps, "All planning artifacts are complete. Run "+d.next+" to inspect implementation progress.")
	}
	ac := &d.ActionContext
	ac.Mode, ac.SourceOfTruth = "repo-local", "repo"
	for _, a := range d.Artifacts {
		ac.PlanningArtifacts = append(ac.PlanningArtifacts, a.ID)
	}
	ac.LinkedContext = []string{}
	ac.AllowedEditRoots = []string{root.Path}
	ac.Constraints = []string{"Repo-local change artifacts and implementation edits are scoped to this project."}
	return d, nil
}

// writeOSStatus is OpenSpec's printStatusText.
func writeOSStatus(w io.Writer, d *osStatusDoc) error {
	var b strings.Builder
	done, skipped := 0, 0
	for _, a := range d.Artifacts {
		switch a.Status {
		case "done":
			done++
		case "skipped":
			skipped++
		}
	}
	fmt.Fprintf(&b, "Change: %s\nSchema: %s\nChange root: %s\n", d.ChangeName, d.SchemaName, d.ChangeRoot)
	suffix := ""
	if skipped > 0 {
		suffix = fmt.Sprintf(" (%d skipped)", skipped)
	}
	fmt.Fprintf(&b, "Progress: %d/%d artifacts complete%s\n\n", done, len(d.Artifacts)-skipped, suffix)
	for _, a := range d.Artifacts {
		mark := map[string]string{"done": "[x]", "skipped": "[~]", "ready": "[ ]", "blocked": "[-]"}[a.Status]
		line := mark + " " + a.ID
		if a.Status == "skipped" {
			line += " (skipped: change declares skip_specs)"
		}
		if a.Status == "blocked" && len(a.MissingDeps) > 0 {
			line += " (blocked by: " + strings.Join(a.MissingDeps, ", ") + ")"
		}
		b.WriteString(line + "\n")
	}
	if d.IsPlanningComplete || d.next != "" {
		b.WriteString("\n")
	}
	if d.IsPlanningComplete {
		b.WriteString("All planning artifacts complete!\n")
	}
	if d.next != "" {
		fmt.Fprintf(&b, "Next: %s\n", d.next)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// osStatusUsage is status's refusal of --change with a CHANGE argument.
var errStatusBoth = exitcode.New(exitcode.Usage, "status: give the change either as CHANGE (jj-openspec's report) or as --change NAME (OpenSpec's), not both")

// runOSStatusAll is `status --all` as OpenSpec 1.13.2 answers it: every
// active change's status in OpenSpec's order (localeCompare), a namespace
// folder carrying its diagnostic in place; {changes, root} with --json,
// else each change's text, blank lines between, "✗ NAME: MESSAGE" for one
// that failed. Exit 1 when any failed. A change whose status cannot be
// read otherwise (its metadata, its schema) runs the real CLI, whose
// diagnostic is its schema library's.
func runOSStatusAll(c *cli.Context, r spec.Root) error {
	names, err := availableChanges(r)
	if err != nil {
		return classify(err)
	}
	root := rootOf(r)
	// What OpenSpec's spinner leaves on a stderr that is not a terminal,
	// once nothing can pass the command to the real CLI any more.
	spinner := func() {
		if !cliapp.JSON(c) {
			fmt.Fprintln(cliapp.Stderr(c), "- Loading change status...")
		}
	}
	if len(names) == 0 {
		spinner()
		if cliapp.JSON(c) {
			return writeOSJSON(c, ordered{{"changes", []any{}}, {"message", "No active changes."}, {"root", root}})
		}
		_, err := fmt.Fprintln(c.App.Writer, "No active changes. Create one with: openspec new change <name>")
		return err
	}
	spec.SortLocale(names, func(n string) string { return n })
	entries := []any{}
	failed := false
	var text strings.Builder
	for i, name := range names {
		if i > 0 {
			text.WriteString("\n")
		}
		if nested := r.NestedChanges(name); nested != nil {
			failed = true
			msg := spec.DescribeNested(name, nested)
			entries = append(entries, ordered{{"changeName", name}, {"status", []osStatus{{Severity: "error", Code: "change_error", Message: msg}}}})
			fmt.Fprintf(&text, "✗ %s: %s\n", name, msg)
			continue
		}
		doc, err := osStatusOf(r, name)
		var b *specwrite.Blocked
		switch {
		case errors.As(err, &b):
			return passThrough(c, invocation(c))
		case err != nil:
			return classify(err) // a link out of the repository: exit 6, naming it
		}
		doc.Root = nil
		entries = append(entries, doc)
		if err := writeOSStatus(&text, doc); err != nil {
			return err
		}
	}
	spinner()
	if cliapp.JSON(c) {
		err = writeOSJSON(c, ordered{{"changes", entries}, {"root", root}})
	} else {
		_, err = io.WriteString(c.App.Writer, text.String())
	}
	if err != nil {
		return err
	}
	if failed {
		return cliapp.Silent(exitcode.Failure)
	}
	return nil
}
