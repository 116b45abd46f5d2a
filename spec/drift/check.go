package drift

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/specstack/specstack/spec"
)

// The kinds of findings.
const (
	Stale          = "stale"           // the live text of a target moved since the delta's base
	Overlap        = "overlap"         // two open changes target the same requirement
	Missing        = "missing"         // a MODIFIED/REMOVED/RENAMED target is not in the live spec
	AlreadyApplied = "already-applied" // the delta's effect is already in the live spec
)

// Finding is one problem of one change's delta.
type Finding struct {
	Kind        string   `json:"kind"`
	Change      string   `json:"change"`
	Capability  string   `json:"capability"`
	Requirement string   `json:"requirement"`
	Op          string   `json:"op"` // ADDED, MODIFIED, REMOVED or RENAMED
	Detail      string   `json:"detail"`
	Others      []string `json:"others,omitempty"` // overlap: the other changes
	Base        string   `json:"base,omitempty"`
	MovedBy     *Commit  `json:"moved_by,omitempty"`
	ArchivedBy  string   `json:"archived_by,omitempty"` // the archived change whose delta moved it
	Preview     string   `json:"preview,omitempty"`     // stale MODIFIED: the block rebase would write
	Conflicts   int      `json:"conflicts,omitempty"`   // conflict hunks in Preview
}

// ChangeBases are the bases of one change's deltas, by capability.
type ChangeBases struct {
	Change string          `json:"change"`
	Bases  map[string]Base `json:"bases"`
	NoBase bool            `json:"no_base"` // it has deltas, none with a known base
}

// Report is the result of Check.
type Report struct {
	History  string        `json:"history"` // jj, git or none
	Changes  []ChangeBases `json:"changes"`
	Findings []Finding     `json:"findings"`
}

// Clean reports whether there are no findings.
func (r *Report) Clean() bool { return len(r.Findings) == 0 }

// Has reports whether there is a finding of kind.
func (r *Report) Has(kind string) bool {
	for _, f := range r.Findings {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// delta is one delta spec of an open change with its texts.
type delta struct {
	change, cap string
	path        string // repository-relative
	plan        spec.DeltaPlan
	text        string
	base        Base
	baseText    string
	baseExists  bool
	live        string
	liveExists  bool
}

// Project is an OpenSpec project in its repository.
type Project struct {
	Root    spec.Root
	Hist    History
	RepoDir string // the repository root History's paths are relative to; "" without history
}

// Open finds the history of the repository around root.
func Open(ctx context.Context, root spec.Root) (*Project, error) {
	h, dir, err := OpenHistory(ctx, root.Dir)
	if err != nil {
		return nil, err
	}
	return &Project{Root: root, Hist: h, RepoDir: dir}, nil
}

func (p *Project) rel(abs string) string {
	if p.RepoDir == "" {
		return filepath.ToSlash(abs)
	}
	r, err := filepath.Rel(p.RepoDir, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

func (p *Project) specPath(capability string) string {
	return filepath.Join(p.Root.SpecsDir(), filepath.FromSlash(capability), "spec.md")
}

// loadDeltas reads the delta specs of changes with their bases, base
// texts and live texts: one history call for the bases, one for the texts.
func (p *Project) loadDeltas(ctx context.Context, changes []string) ([]*delta, map[string]Base, error) {
	var ds []*delta
	meta := map[string]string{}
	for _, c := range changes {
		files, err := spec.DiscoverSpecs(filepath.Join(p.Root.ChangeDir(c), "specs"))
		if err != nil {
			return nil, nil, err
		}
		if b := p.Root.ChangeBase(c); b != "" {
			meta[c] = b
		}
		for _, f := range files {
			raw, err := p.Root.ReadFile(f.Path)
			if err != nil {
				return nil, nil, fmt.Errorf("read delta %s: %w", f.Path, err)
			}
			d := &delta{change: c, cap: f.ID, path: p.rel(f.Path), text: string(raw), plan: spec.ParseDelta(string(raw))}
			live, err := p.Root.ReadFile(p.specPath(f.ID))
			switch {
			case err == nil:
				d.live, d.liveExists = string(live), true
			case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
				// (A file where the capability's directory belongs reads as
				// no spec, as archive reads it.)
				return nil, nil, fmt.Errorf("read spec %s: %w", p.specPath(f.ID), err)
			}
			ds = append(ds, d)
		}
	}
	var need []string
	for _, d := range ds {
		if _, ok := meta[d.change]; !ok {
			need = append(need, d.path)
		}
	}
	bases := map[string]Base{}
	if len(need) > 0 {
		var err error
		if bases, err = p.Hist.Bases(ctx, need); err != nil {
			return nil, nil, err
		}
	}
	// A recorded base must name a commit of this repository.
	var recorded []string
	for c := range meta {
		recorded = append(recorded, c)
	}
	sort.Strings(recorded)
	var probe []At
	for _, c := range recorded {
		probe = append(probe, At{Rev: meta[c]})
	}
	found, err := p.readExists(ctx, probe)
	if err != nil {
		return nil, nil, err
	}
	missingBase := map[string]bool{}
	for i, c := range recorded {
		missingBase[c] = !found[i]
	}
	var at []At
	for _, d := range ds {
		if m, ok := meta[d.change]; ok && missingBase[d.change] {
			d.base = Base{Rev: m, Source: "metadata", Note: fmt.Sprintf("base %s in openspec/changes/%s/.openspec.yaml is not a commit of this repository (%s history)", short(m), d.change, p.Hist.Kind())}
		} else if ok {
			d.base = Base{Rev: m, Known: true, Source: "metadata"}
		} else if b, ok := bases[d.path]; ok {
			d.base = b
		} else {
			d.base = Base{Source: "none"}
		}
		if d.base.Known {
			// The spec at the base, and as the revision adding the delta
			// holds it, for a spec created together with the delta.
			sp := p.rel(p.specPath(d.cap))
			at = append(at, At{Rev: d.base.Rev, Path: sp}, At{Rev: d.base.Added, Path: sp})
		}
	}
	texts, exists, err := p.Hist.Read(ctx, at)
	if err != nil {
		return nil, nil, fmt.Errorf("read the specs at the changes' bases: %w", err)
	}
	i := 0
	for _, d := range ds {
		if !d.base.Known {
			continue
		}
		d.baseText, d.baseExists = texts[i], exists[i]
		switch {
		case d.baseExists:
		case exists[i+1]:
			d.baseText, d.baseExists = texts[i+1], true
			d.base.Rev = d.base.Added
		case d.base.Source == "uncommitted" && d.liveExists:
			// Delta and spec both new in the working copy.
			d.baseText, d.baseExists = d.live, true
		}
		i += 2
	}
	return ds, bases, nil
}

func (p *Project) readExists(ctx context.Context, at []At) ([]bool, error) {
	if len(at) == 0 {
		return nil, nil
	}
	_, exists, err := p.Hist.Read(ctx, at)
	if err != nil {
		return nil, fmt.Errorf("look up the recorded bases: %w", err)
	}
	return exists, nil
}

// names returns the changes to check: those named (each must exist), or
// every open change.
func (p *Project) names(named []string) ([]string, error) {
	if len(named) > 0 {
		for _, n := range named {
			if err := p.Root.CheckChange(n); err != nil {
				return nil, err
			}
		}
		return named, nil
	}
	return p.Root.ChangeNames()
}

// Check reports the findings of the named changes (every open change when
// none is named). Overlap is looked for among all open changes, and
// reported for the named ones.
func (p *Project) Check(ctx context.Context, named []string) (*Report, error) {
	names, err := p.names(named)
	if err != nil {
		return nil, err
	}
	ds, _, err := p.loadDeltas(ctx, names)
	if err != nil {
		return nil, err
	}
	rep := &Report{History: p.Hist.Kind(), Changes: []ChangeBases{}, Findings: []Finding{}}
	byChange := map[string]*ChangeBases{}
	for _, n := range names {
		rep.Changes = append(rep.Changes, ChangeBases{Change: n, Bases: map[string]Base{}})
	}
	for i := range rep.Changes {
		byChange[rep.Changes[i].Change] = &rep.Changes[i]
	}
	for _, d := range ds {
		cb := byChange[d.change]
		cb.Bases[d.cap] = d.base
	}
	for _, d := range ds {
		cb := byChange[d.change]
		cb.NoBase = true
		for _, b := range cb.Bases {
			if b.Known {
				cb.NoBase = false
			}
		}
		rep.Findings = append(rep.Findings, p.findings(d)...)
	}
	all, err := p.Root.ChangeNames()
	if err != nil {
		return nil, err
	}
	ov, err := overlaps(p.Root, all, names)
	if err != nil {
		return nil, err
	}
	rep.Findings = append(rep.Findings, ov...)
	if err := p.explain(ctx, rep.Findings); err != nil {
		return nil, err
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.Change != b.Change {
			return a.Change < b.Change
		}
		return a.Capability < b.Capability
	})
	return rep, nil
}

// blocksOf returns a spec's requirement blocks by normalized name.
func blocksOf(content string, exists bool) map[string]spec.Block {
	out := map[string]spec.Block{}
	if !exists {
		return out
	}
	for _, b := range spec.ExtractRequirementsSection(content).Blocks {
		k := spec.NormalizeRequirementName(b.Name)
		if _, ok := out[k]; !ok {
			out[k] = b
		}
	}
	return out
}

func same(a, b string) bool {
	return strings.TrimSpace(lf(a)) == strings.TrimSpace(lf(b))
}

// findings checks one delta against its base and the live spec.
func (p *Project) findings(d *delta) []Finding {
	live := blocksOf(d.live, d.liveExists)
	base := blocksOf(d.baseText, d.baseExists)
	var out []Finding
	add := func(kind, op, name, detail string) *Finding {
		out = append(out, Finding{Kind: kind, Change: d.change, Capability: d.cap, Requirement: name, Op: op, Detail: detail, Base: d.base.Rev})
		return &out[len(out)-1]
	}
	missing := func(op, name string) {
		switch {
		case !d.base.Known:
			add(Missing, op, name, "not in the live spec (no base: cannot tell whether it was removed)")
		case hasBlock(base, name):
			add(Missing, op, name, "removed since base")
		default:
			add(Missing, op, name, "never existed")
		}
	}
	stale := func(name string) bool {
		if !d.base.Known {
			return false
		}
		lb, inLive := live[name]
		bb, inBase := base[name]
		return inLive && (!inBase || !same(lb.Raw, bb.Raw))
	}
	for _, b := range d.plan.Modified {
		name := spec.NormalizeRequirementName(b.Name)
		lb, ok := live[name]
		switch {
		case !ok:
			missing("MODIFIED", name)
		case same(lb.Raw, b.Raw):
			add(AlreadyApplied, "MODIFIED", name, "the live spec already holds this text")
		case stale(name):
			m := MergeRequirement(base[name].Raw, lb.Raw, b.Raw, p.labels(d))
			f := add(Stale, "MODIFIED", name, "the live text changed since the base")
			f.Preview, f.Conflicts = m.String(), m.Conflicts()
			if !hasBlock(base, name) {
				f.Detail = "added to the live spec since the base"
			}
		}
	}
	for _, name := range d.plan.Removed {
		name = spec.NormalizeRequirementName(name)
		switch {
		case !hasBlock(live, name):
			missing("REMOVED", name)
		case stale(name):
			add(Stale, "REMOVED", name, "the live text changed since the base; removing it drops that change")
		}
	}
	for _, r := range d.plan.Renamed {
		from, to := spec.NormalizeRequirementName(r.From), spec.NormalizeRequirementName(r.To)
		switch {
		case !hasBlock(live, from) && hasBlock(live, to):
			add(AlreadyApplied, "RENAMED", from, fmt.Sprintf("the live spec already names it %q", to))
		case !hasBlock(live, from):
			missing("RENAMED", from)
		case stale(from):
			add(Stale, "RENAMED", from, "the live text changed since the base")
		}
	}
	for _, b := range d.plan.Added {
		name := spec.NormalizeRequirementName(b.Name)
		lb, ok := live[name]
		switch {
		case ok && same(lb.Raw, b.Raw):
			add(AlreadyApplied, "ADDED", name, "the live spec already holds this requirement")
		case ok:
			f := add(Stale, "ADDED", name, "the live spec holds another requirement of this name")
			if d.base.Known && hasBlock(base, name) {
				f.Detail = existedAtBase
			}
		}
	}
	return out
}

// existedAtBase details an ADDED finding whose name the spec already
// held at the change's base: the author's mistake (MODIFIED was meant),
// not the spec moving under the change.
const existedAtBase = "the requirement already existed at the base"

func hasBlock(m map[string]spec.Block, name string) bool {
	_, ok := m[name]
	return ok
}

func (p *Project) labels(d *delta) Labels {
	return Labels{
		Base:  "base " + short(d.base.Rev),
		Left:  "live openspec/specs/" + d.cap + "/spec.md",
		Right: "change " + d.change,
	}
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	if id == "" {
		return "(empty)"
	}
	return id
}

// overlaps finds the requirements two open changes target: MODIFIED,
// REMOVED or RENAMED (from) the same one, or ADDED under the same name;
// reported for the changes in report.
func overlaps(r spec.Root, all, report []string) ([]Finding, error) {
	type key struct{ cap, name, kind string }
	type use struct{ change, op string }
	seen := map[key][]use{}
	var order []key
	for _, c := range all {
		files, err := spec.DiscoverSpecs(filepath.Join(r.ChangeDir(c), "specs"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			raw, err := r.ReadFile(f.Path)
			if err != nil {
				return nil, fmt.Errorf("read delta %s: %w", f.Path, err)
			}
			plan := spec.ParseDelta(string(raw))
			note := func(name, kind, op string) {
				k := key{f.ID, spec.NormalizeRequirementName(name), kind}
				if _, ok := seen[k]; !ok {
					order = append(order, k)
				}
				seen[k] = append(seen[k], use{c, op})
			}
			for _, b := range plan.Modified {
				note(b.Name, "target", "MODIFIED")
			}
			for _, n := range plan.Removed {
				note(n, "target", "REMOVED")
			}
			for _, rn := range plan.Renamed {
				note(rn.From, "target", "RENAMED")
			}
			for _, b := range plan.Added {
				note(b.Name, "added", "ADDED")
			}
		}
	}
	want := map[string]bool{}
	for _, c := range report {
		want[c] = true
	}
	var out []Finding
	for _, k := range order {
		uses := seen[k]
		changes := map[string]bool{}
		for _, u := range uses {
			changes[u.change] = true
		}
		if len(changes) < 2 {
			continue
		}
		for _, u := range uses {
			if !want[u.change] {
				continue
			}
			var others []string
			for _, o := range uses {
				if o.change != u.change {
					others = append(others, o.change+" ("+o.op+")")
				}
			}
			detail := "other open changes target the same requirement: " + strings.Join(others, ", ")
			if k.kind == "added" {
				detail = "other open changes add a requirement of the same name: " + strings.Join(others, ", ")
			}
			out = append(out, Finding{Kind: Overlap, Change: u.change, Capability: k.cap, Requirement: k.name, Op: u.op, Detail: detail, Others: others})
		}
	}
	return out, nil
}

// explain names, for each stale or removed-since-base finding, the newest
// revision that changed the spec (one history call for all of them: the
// spec moved after the base, so that revision is after it) and the
// archived change whose delta touched the requirement.
func (p *Project) explain(ctx context.Context, fs []Finding) error {
	explained := func(f Finding) bool {
		return f.Base != "" && (f.Kind == Stale || (f.Kind == Missing && f.Detail == "removed since base"))
	}
	var paths []string
	seen := map[string]bool{}
	for _, f := range fs {
		if sp := p.rel(p.specPath(f.Capability)); explained(f) && !seen[sp] {
			seen[sp] = true
			paths = append(paths, sp)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	movers, err := p.Hist.Movers(ctx, paths)
	if err != nil {
		return fmt.Errorf("find what changed %s: %w", strings.Join(paths, ", "), err)
	}
	archived := map[string]string{}
	for i := range fs {
		f := &fs[i]
		if !explained(*f) {
			continue
		}
		if c, ok := movers[p.rel(p.specPath(f.Capability))]; ok {
			f.MovedBy = &c
		}
		ak := f.Capability + "\x00" + f.Requirement
		a, ok := archived[ak]
		if !ok {
			a = p.archivedBy(f.Capability, f.Requirement)
			archived[ak] = a
		}
		f.ArchivedBy = a
	}
	return nil
}

// archivedBy returns the newest archived change whose delta for
// capability targets requirement, or "".
func (p *Project) archivedBy(capability, requirement string) string {
	entries, err := os.ReadDir(p.Root.ArchiveDir())
	if err != nil {
		return ""
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.IsDir() {
			continue
		}
		raw, err := p.Root.ReadFile(filepath.Join(p.Root.ArchiveDir(), e.Name(), "specs", filepath.FromSlash(capability), "spec.md"))
		if err != nil {
			continue
		}
		plan := spec.ParseDelta(string(raw))
		for _, b := range append(append([]spec.Block{}, plan.Modified...), plan.Added...) {
			if spec.NormalizeRequirementName(b.Name) == requirement {
				return e.Name()
			}
		}
		for _, n := range plan.Removed {
			if spec.NormalizeRequirementName(n) == requirement {
				return e.Name()
			}
		}
		for _, rn := range plan.Renamed {
			if spec.NormalizeRequirementName(rn.From) == requirement || spec.NormalizeRequirementName(rn.To) == requirement {
				return e.Name()
			}
		}
	}
	return ""
}
