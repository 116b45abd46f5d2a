package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/spec/internal/jstext"
	"github.com/specstack/specstack/spec/tasksmd"
)

// ValidateOptions selects the checks of ValidateChange.
type ValidateOptions struct {
	// Against the main specs: scenario loss in MODIFIED blocks, and INFO
	// notes for deltas archive would refuse (what `openspec validate` does).
	MainSpecs bool
	// Lint the change's task files (missing checkboxes, task numbering).
	Tasks bool
}

// Report is the outcome of validating a change.
type Report struct {
	Change string  `json:"id"`
	Valid  bool    `json:"valid"`
	Issues []Issue `json:"issues"`
}

// Counts of issues by level.
func (r Report) Count(level string) int {
	n := 0
	for _, i := range r.Issues {
		if i.Level == level {
			n++
		}
	}
	return n
}

// ValidateChange applies OpenSpec 1.13's change-delta rules
// (Validator.validateChangeDeltaSpecs) to change. Valid means no ERROR
// (and, when strict, no WARNING).
func (r Root) ValidateChange(change string, opts ValidateOptions, strict bool) (Report, error) {
	if r.memo == nil {
		r = r.memoized() // config, schemas and documents read once for this change
	}
	if err := r.CheckChange(change); err != nil {
		return Report{}, err
	}
	if nested := r.NestedChanges(change); nested != nil {
		return Report{Change: change, Issues: []Issue{{Level: LevelError, Path: "file", Message: DescribeNested(change, nested)}}}, nil
	}
	issues, err := r.changeIssues(change, opts)
	if err != nil {
		return Report{}, err
	}
	if issues == nil {
		issues = []Issue{}
	}
	return Report{Change: change, Valid: !HasErrors(issues, strict), Issues: issues}, nil
}

func (r Root) changeIssues(change string, opts ValidateOptions) ([]Issue, error) {
	changeDir := r.ChangeDir(change)
	specsDir := filepath.Join(changeDir, "specs")
	var issues []Issue
	add := func(level, path string, line int, format string, args ...any) {
		issues = append(issues, Issue{Level: level, Path: path, Line: line, Message: fmt.Sprintf(format, args...)})
	}
	totalDeltas := 0
	rootSpec := false
	var missingHeader []string
	type emptySec struct {
		path     string
		sections []string
	}
	var emptySections []emptySec
	discovered, err := DiscoverSpecs(specsDir)
	if err != nil {
		return nil, err
	}
	rootSpec, err = hasRootSpecFile(specsDir)
	if err != nil {
		return nil, err
	}
	if rootSpec {
		add(LevelError, "spec.md", 0, "Delta spec found at specs/spec.md. Delta specs must live under a capability path (e.g. specs/<capability-path>/spec.md) — a file at the specs/ root is ignored when the change is applied or archived.")
	}
	for _, sf := range discovered {
		b, err := r.readText(sf.Path)
		if err != nil {
			return nil, err
		}
		plan := ParseDelta(string(b))
		entry := sf.ID + "/spec.md"
		for _, s := range plan.Skipped {
			if isNamelessRequirement(s.Header) {
				add(LevelInfo, entry, s.Line, "Header \"### %s\" in %s is missing a requirement name and is ignored by validation. Add a name, e.g. \"### Requirement: <name>\".", s.Header, s.Section)
			} else {
				add(LevelInfo, entry, s.Line, "Header \"### %s\" in %s is not a \"### Requirement:\" header and is ignored by validation. Use \"### Requirement: %s\" if it should be validated as a requirement.", s.Header, s.Section, s.Header)
			}
		}
		for _, u := range plan.Unpaired {
			missing := "TO"
			if u.Side == "TO" {
				missing = "FROM"
			}
			add(LevelError, entry, u.Line, "RENAMED %s: \"%s\" has no matching %s: line. Write each rename as a FROM: line followed immediately by its TO: line.", u.Side, u.Name, missing)
		}
		for _, o := range plan.Orphans {
			where := `above the first "## " section`
			if o.HasSec {
				where = fmt.Sprintf("under \"## %s\"", o.Section)
			}
			add(LevelWarning, entry, o.Line, "Requirement \"%s\" is %s, which is not a delta section, so it is ignored. Move it under \"## ADDED Requirements\", \"## MODIFIED Requirements\", \"## REMOVED Requirements\", or \"## RENAMED Requirements\".", o.Name, where)
		}
		var names []string
		for _, s := range []struct {
			has  bool
			name string
		}{{plan.HasAdded, "## ADDED Requirements"}, {plan.HasModified, "## MODIFIED Requirements"}, {plan.HasRemoved, "## REMOVED Requirements"}, {plan.HasRenamed, "## RENAMED Requirements"}} {
			if s.has {
				names = append(names, s.name)
			}
		}
		if plan.Ops() == 0 {
			if len(names) > 0 {
				emptySections = append(emptySections, emptySec{entry, names})
			} else {
				missingHeader = append(missingHeader, entry)
			}
		}
		c := checkDelta(plan)
		checkBlock := func(op string, b Block) {
			text := requirementBody(strings.Split(b.Raw, "\n")[1:])
			switch {
			case text == "" && containsShallOrMust(b.Name):
				add(LevelError, entry, 0, "%s", shallMessage(fmt.Sprintf("%s \"%s\"", op, b.Name), b.Name, false))
			case text == "":
				add(LevelError, entry, 0, "%s \"%s\" is missing requirement text", op, b.Name)
			case !containsShallOrMust(text):
				add(LevelWarning, entry, 0, "%s", shallMessage(fmt.Sprintf("%s \"%s\"", op, b.Name), b.Name, true))
			}
			if n, empty := countScenarios(strings.Split(b.Raw, "\n")[1:]); n < 1 {
				hint := ""
				if empty > 0 {
					hint = ` (a scenario header with no body under it does not count; add its steps, e.g. "- **WHEN** ..." and "- **THEN** ...")`
				}
				add(LevelError, entry, 0, "%s \"%s\" must include at least one scenario%s", op, b.Name, hint)
			}
		}
		for i, b := range plan.Added {
			totalDeltas++
			if c.dupAdded[i] {
				add(LevelError, entry, 0, "Duplicate requirement in ADDED: \"%s\"", b.Name)
			}
			checkBlock("ADDED", b)
		}
		for i, b := range plan.Modified {
			totalDeltas++
			if c.dupModified[i] {
				add(LevelError, entry, 0, "Duplicate requirement in MODIFIED: \"%s\"", b.Name)
			}
			checkBlock("MODIFIED", b)
		}
		if opts.MainSpecs && len(plan.Modified) > 0 {
			loss, err := r.scenarioLoss(plan, sf.ID, entry)
			if err != nil {
				return nil, err
			}
			issues = append(issues, loss...)
		}
		for i, n := range plan.Removed {
			totalDeltas++
			if c.dupRemoved[i] {
				add(LevelError, entry, 0, "Duplicate requirement in REMOVED: \"%s\"", n)
			}
		}
		for i, rn := range plan.Renamed {
			totalDeltas++
			if c.dupFrom[i] {
				add(LevelError, entry, 0, "Duplicate FROM in RENAMED: \"%s\"", rn.From)
			}
			if c.dupTo[i] {
				add(LevelError, entry, 0, "Duplicate TO in RENAMED: \"%s\"", rn.To)
			}
		}
		for _, b := range c.both {
			add(LevelError, entry, 0, "Requirement present in both %s and %s: \"%s\"", b.a, b.b, b.name)
		}
		for i, rn := range plan.Renamed {
			rc := c.renames[i]
			if rc.modified {
				add(LevelError, entry, 0, "MODIFIED references old name from RENAMED. Use new header for \"%s\"", rn.To)
			}
			if rc.addedTarget {
				add(LevelError, entry, 0, "RENAMED TO collides with ADDED for \"%s\"", rn.To)
			}
			if rc.removed {
				extra := ""
				if rc.removedAs != "" {
					extra = fmt.Sprintf(" (REMOVED spells it \"%s\")", rc.removedAs)
				}
				add(LevelError, entry, 0, "Requirement present in both RENAMED and REMOVED: \"%s\"%s", rn.From, extra)
			}
		}
	}
	if opts.MainSpecs {
		reported := map[string]bool{}
		for _, i := range issues {
			if i.Level == LevelError {
				reported[i.Path] = true
			}
		}
		for _, p := range missingHeader {
			reported[p] = true
		}
		for _, e := range emptySections {
			reported[e.path] = true
		}
		for _, sf := range discovered {
			entry := sf.ID + "/spec.md"
			if reported[entry] {
				continue
			}
			if _, err := r.mergeOne(change, sf); err != nil {
				var me *MergeError
				if !errors.As(err, &me) {
					return nil, err
				}
				add(LevelInfo, entry, 0, "Archive would refuse this delta: %s", me.Msg)
			}
		}
	}
	unread, err := findUnreadDeltas(specsDir)
	if err != nil {
		return nil, err
	}
	for _, u := range unread {
		add(LevelError, u.Path, 0, "Delta spec found at specs/%s. Delta specs must be a spec.md inside a capability folder — this file is ignored when the change is applied or archived. Move its requirements into specs/%s.", u.Path, u.Expected)
	}
	for _, e := range emptySections {
		add(LevelError, e.path, 0, "Delta sections %s were found, but no requirement entries parsed. Ensure each section includes at least one \"### Requirement:\" block (REMOVED may use bullet list syntax).", sectionList(e.sections))
	}
	for _, p := range missingHeader {
		add(LevelError, p, 0, "No delta sections found. Add headers such as \"## ADDED Requirements\" or move non-delta notes outside specs/.")
	}
	marker := r.skipSpecsMarker(change)
	if marker.invalid != "" {
		add(LevelError, ".openspec.yaml", 0, "%s", markerInvalidMessage(marker.invalid))
	}
	specsHaveFiles := false
	if marker.declared {
		ok, err := hasAnyFileUnder(specsDir)
		specsHaveFiles = ok || err != nil
		if specsHaveFiles {
			add(LevelError, "file", 0, "skip_specs is set in .openspec.yaml but spec files exist under specs/. Remove skip_specs or delete the delta spec files")
		}
	}
	if totalDeltas == 0 && !rootSpec && len(unread) == 0 {
		switch {
		case marker.declared && !specsHaveFiles:
			add(LevelInfo, "file", 0, "skip_specs is set in .openspec.yaml: change declares no spec-level behavior changes, zero deltas accepted")
		case !marker.declared:
			add(LevelError, "file", 0, "%s", msgNoDeltas)
		}
	}
	if opts.Tasks {
		ti, err := r.taskIssues(change)
		if err != nil {
			return nil, err
		}
		issues = append(issues, ti...)
	}
	return issues, nil
}

func isNamelessRequirement(h string) bool {
	return strings.EqualFold(h, "requirement") || strings.EqualFold(h, "requirement:")
}

func shallMessage(prefix, name string, guidance bool) string {
	verb, suffix := "must", ""
	if guidance {
		verb, suffix = "should", " (RFC 2119 best practice for English specs)"
	}
	base := prefix + " " + verb + " contain SHALL or MUST"
	if containsShallOrMust(name) {
		return base + " in the requirement body, not only in the header. Move the SHALL/MUST statement to the line immediately after the \"### Requirement: ...\" header." + suffix
	}
	return base + suffix
}

func sectionList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

type skipMarker struct {
	declared bool
	invalid  string
}

// skipSpecsMarker reads skip_specs; it is honoured only when the metadata
// is valid and names a schema that loads.
func (r Root) skipSpecsMarker(change string) skipMarker {
	md := readChangeMetadata(r.ChangeDir(change))
	if !md.present {
		return skipMarker{}
	}
	if md.invalid != "" {
		if md.skipMentions {
			return skipMarker{invalid: md.invalid}
		}
		return skipMarker{}
	}
	if !md.skipSpecs {
		return skipMarker{}
	}
	if _, err := r.LoadSchema(md.schema); err != nil {
		return skipMarker{invalid: fmt.Sprintf("schema: unknown schema '%s'", md.schema)}
	}
	return skipMarker{declared: true}
}

// scenarioLoss reports MODIFIED blocks that omit a scenario the main spec
// still has (following renames), as `openspec validate` does.
func (r Root) scenarioLoss(plan DeltaPlan, id, entry string) ([]Issue, error) {
	path := filepath.Join(r.SpecsDir(), filepath.FromSlash(id), "spec.md")
	b, err := r.readText(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
			return nil, nil
		}
		if errors.Is(err, regfile.ErrNotRegular) {
			return nil, err
		}
		return []Issue{{Level: LevelError, Path: entry, Message: fmt.Sprintf("Could not read %s to check the MODIFIED requirements against it (%v). Archive reads the same file, so fix the file before archiving.", path, err)}}, nil
	}
	current := map[string]Block{}
	for _, blk := range ExtractRequirementsSection(string(b)).Blocks {
		current[NormalizeRequirementName(blk.Name)] = blk
	}
	renamedFrom := map[string]string{}
	renamedAway := map[string]bool{}
	for _, rn := range plan.Renamed {
		renamedFrom[NormalizeRequirementName(rn.To)] = NormalizeRequirementName(rn.From)
		renamedAway[NormalizeRequirementName(rn.From)] = true
	}
	var out []Issue
	for _, mod := range plan.Modified {
		k := NormalizeRequirementName(mod.Name)
		if renamedAway[k] {
			continue
		}
		var cur *Block
		visited := map[string]bool{}
		for key, ok := k, true; ok && !visited[key]; key, ok = renamedFrom[key] {
			if blk, found := current[key]; found {
				cur = &blk
				break
			}
			visited[key] = true
		}
		if cur == nil {
			continue
		}
		cn, mn := scenarioNames(cur.Raw), scenarioNames(mod.Raw)
		missing := missingScenarios(cn, mn)
		if len(missing) == 0 {
			continue
		}
		out = append(out, Issue{Level: LevelError, Path: entry, Message: fmt.Sprintf("MODIFIED \"%s\" omits scenario(s) the current spec still has: %s. %s Copy the omitted scenarios into the MODIFIED block (a MODIFIED requirement replaces the whole block, so archive refuses to drop them).", mod.Name, quoteList(missing), scenarioBalance(cn, mn))})
	}
	return out, nil
}

// SpecUpdate is one main spec a change's delta would rewrite.
type SpecUpdate struct {
	ID     string `json:"id"`
	Target string `json:"target"` // main spec path
	Source string `json:"source"` // delta path
	Exists bool   `json:"exists"`
	Old    string `json:"-"` // the spec as text (ReadText)
	Raw    []byte `json:"-"` // its bytes as read, which archive's journal checks before it writes
	Merged *Merged
	// Retire: the delta removes the spec's last requirement in a change
	// declaring retire_capabilities; archive deletes the spec.
	Retire bool `json:"retire,omitempty"`
}

func (r Root) mergeOne(change string, sf SpecFile) (*SpecUpdate, error) {
	delta, err := r.readText(sf.Path)
	if err != nil {
		return nil, err
	}
	u := &SpecUpdate{ID: sf.ID, Source: sf.Path, Target: filepath.Join(r.SpecsDir(), filepath.FromSlash(sf.ID), "spec.md")}
	old, err := r.readFile(u.Target)
	switch {
	case err == nil:
		u.Exists, u.Raw, u.Old = true, old, string(jstext.Decode(old))
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR):
	default:
		return nil, err
	}
	realDir, err := filepath.EvalSymlinks(r.Dir)
	if err != nil {
		realDir = r.Dir
	}
	shown := filepath.Join(realDir, "openspec", "specs", filepath.FromSlash(sf.ID), "spec.md")
	m, err := Merge(sf.ID, change, string(delta), u.Old, shown, u.Exists)
	if err != nil {
		return nil, err
	}
	u.Merged = m
	return u, nil
}

// taskIssues lints the task files: no checkbox anywhere, and (for the
// built-in spec-driven schema) ambiguous task numbering.
func (r Root) taskIssues(change string) ([]Issue, error) {
	dir := r.ChangeDir(change)
	files := r.trackedTaskFiles(change, nil)
	tracked := len(files) > 0
	if !tracked {
		files = []string{filepath.Join(dir, "tasks.md")}
	}
	type doc struct{ path, content string }
	var docs []doc
	unreadable := 0
	for _, f := range files {
		b, err := r.ReadText(f)
		if err != nil {
			if errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, ErrOutside) {
				return nil, err
			}
			if !errors.Is(err, fs.ErrNotExist) {
				unreadable++
			}
			continue
		}
		rel, _ := filepath.Rel(dir, f)
		docs = append(docs, doc{filepath.ToSlash(rel), string(b)})
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].path < docs[j].path })
	var out []Issue
	if tracked && unreadable == 0 && len(docs) > 0 {
		any := false
		for _, d := range docs {
			if tasksmd.CountTasks(d.content).Total > 0 {
				any = true
			}
		}
		if !any {
			for _, d := range docs {
				if line := firstListItemLine(d.content); line > 0 {
					out = append(out, Issue{Level: LevelWarning, Path: d.path, Line: line, Message: "This change counts as 0 tasks: no line in its tracked task files is a checkbox, so \"openspec list\" and \"openspec status\" report no work and \"openspec archive\" has nothing to flag as incomplete. Write each task as \"- [ ] 1.1 Description\"."})
				}
			}
		}
	}
	if name, err := r.SchemaName(change); err == nil && name == "spec-driven" {
		if _, err := os.Stat(filepath.Join(r.OpenSpecDir(), "schemas", "spec-driven")); err != nil {
			first := map[string]struct {
				path string
				line int
			}{}
			for _, d := range docs {
				for _, n := range numberingIssues(d.content) {
					if n.msg != "" {
						out = append(out, Issue{Level: LevelWarning, Path: d.path, Line: n.line, Message: n.msg})
					}
					if n.id != "" {
						if f, dup := first[n.id]; dup {
							where := fmt.Sprintf("on line %d", f.line)
							if f.path != d.path {
								where = fmt.Sprintf("in %s on line %d", f.path, f.line)
							}
							out = append(out, Issue{Level: LevelWarning, Path: d.path, Line: n.line, Message: fmt.Sprintf("Task ID \"%s\" is duplicated; it was first declared %s.", n.id, where)})
						} else {
							first[n.id] = struct {
								path string
								line int
							}{d.path, n.line}
						}
					}
				}
			}
		}
	}
	return out, nil
}
