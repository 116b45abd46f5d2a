package drift

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/journal"
	"github.com/specstack/specstack/spec"
)

// ErrNoBase reports a change none of whose deltas has a known base.
var ErrNoBase = errors.New("no base")

// Rebased is one requirement rebase merged.
type Rebased struct {
	Capability  string `json:"capability"`
	Requirement string `json:"requirement"`
	Conflicts   int    `json:"conflicts"`
}

// FileRewrite is one file rebase rewrites.
type FileRewrite struct {
	Path    string `json:"path"` // relative to the project root
	abs     string
	Exists  bool   `json:"-"`
	Old     string `json:"-"`
	New     string `json:"-"`
	Diff    string `json:"diff"`
	Markers int    `json:"conflicts"`
}

// RebaseResult is what Rebase did (or, dry, would do).
type RebaseResult struct {
	Change    string        `json:"change"`
	Merged    []Rebased     `json:"merged"`
	Left      []Finding     `json:"left"` // what rebase cannot merge: stale REMOVED, RENAMED and ADDED targets, missing ones
	Files     []FileRewrite `json:"files"`
	NewBase   string        `json:"new_base,omitempty"`
	BaseNote  string        `json:"base_note,omitempty"` // why no new base is recorded
	Conflicts int           `json:"conflicts"`
}

// PlanRebase merges the stale MODIFIED requirements of change forward,
// in memory: base = the requirement at the delta's base, ours = the live
// one, theirs = the delta's block (MergeRequirement). The change's new
// base, the revision holding the live specs, goes into its
// .openspec.yaml. Nothing under openspec/specs/ is touched.
func (p *Project) PlanRebase(ctx context.Context, change string) (*RebaseResult, error) {
	if err := p.Root.CheckChange(change); err != nil {
		return nil, err
	}
	ds, _, err := p.loadDeltas(ctx, []string{change})
	if err != nil {
		return nil, err
	}
	res := &RebaseResult{Change: change, Merged: []Rebased{}, Left: []Finding{}, Files: []FileRewrite{}}
	known := false
	for _, d := range ds {
		known = known || d.base.Known
	}
	if len(ds) > 0 && !known {
		return nil, fmt.Errorf("rebase %q: %w: the repository has no history for its deltas (%s); write the commit its deltas were written against as `base: COMMIT` in openspec/changes/%s/.openspec.yaml", change, ErrNoBase, p.Hist.Kind(), change)
	}
	var specPaths []string
	stale := false
	for _, d := range ds {
		specPaths = append(specPaths, p.rel(p.specPath(d.cap)))
		if !d.base.Known {
			continue
		}
		for _, f := range p.findings(d) {
			if f.Kind == Stale && f.Op != "MODIFIED" || f.Kind == Missing {
				res.Left = append(res.Left, f)
			}
			stale = stale || f.Kind == Stale
		}
		rw, merged, err := p.rebaseDelta(d)
		if err != nil {
			return nil, err
		}
		res.Merged = append(res.Merged, merged...)
		if rw != nil {
			res.Files = append(res.Files, *rw)
			res.Conflicts += rw.Markers
		}
	}
	if !stale {
		return res, nil // nothing moved: the base stays
	}
	cur, err := p.Hist.Current(ctx, specPaths)
	if err != nil {
		return nil, fmt.Errorf("find the revision holding the live specs: %w", err)
	}
	switch {
	case cur == "":
		res.BaseNote = "the live specs have uncommitted edits, which no commit names: commit them and rebase again to record the new base"
	case len(ds) == 0:
		res.BaseNote = "the change has no delta specs"
	case p.Root.ChangeBase(change) == cur:
	default:
		rw, err := p.recordBase(change, cur)
		if err != nil {
			return nil, err
		}
		res.NewBase = cur
		res.Files = append(res.Files, *rw)
	}
	return res, nil
}

// rebaseDelta merges d's stale MODIFIED blocks; nil when none is stale.
func (p *Project) rebaseDelta(d *delta) (*FileRewrite, []Rebased, error) {
	live := blocksOf(d.live, d.liveExists)
	base := blocksOf(d.baseText, d.baseExists)
	type repl struct {
		raw string
		m   Merged
	}
	var rs []repl
	var merged []Rebased
	total := 0
	for _, b := range d.plan.Modified {
		name := spec.NormalizeRequirementName(b.Name)
		lb, ok := live[name]
		if !ok || same(lb.Raw, b.Raw) {
			continue
		}
		bb, inBase := base[name]
		if inBase && same(bb.Raw, lb.Raw) {
			continue
		}
		m := MergeRequirement(bb.Raw, lb.Raw, b.Raw, p.labels(d))
		rs = append(rs, repl{b.Raw, m})
		total += m.Conflicts()
		merged = append(merged, Rebased{Capability: d.cap, Requirement: name, Conflicts: m.Conflicts()})
	}
	if len(rs) == 0 {
		return nil, nil, nil
	}
	crlf := strings.Contains(d.text, "\r\n")
	text := lf(d.text)
	var out strings.Builder
	at, k := 0, 1
	for _, r := range rs {
		i := strings.Index(text[at:], r.raw)
		if i < 0 {
			return nil, nil, fmt.Errorf("rebase %s: cannot find the block of %q again in the delta", d.path, r.raw[:min(len(r.raw), 60)])
		}
		out.WriteString(text[at : at+i])
		out.WriteString(r.m.Render(k, total))
		k += r.m.Conflicts()
		at += i + len(r.raw)
	}
	out.WriteString(text[at:])
	next := out.String()
	if crlf {
		next = strings.ReplaceAll(next, "\n", "\r\n")
	}
	abs := filepath.Join(p.Root.ChangeDir(d.change), "specs", filepath.FromSlash(d.cap), "spec.md")
	show := p.show(abs)
	return &FileRewrite{Path: show, abs: abs, Exists: true, Old: d.text, New: next, Markers: total,
		Diff: spec.UnifiedDiff(show, d.text, next, true)}, merged, nil
}

func (p *Project) show(abs string) string {
	r, err := filepath.Rel(p.Root.Dir, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// recordBase rewrites the change's .openspec.yaml with base: commit,
// creating it (with the change's schema) when there is none.
func (p *Project) recordBase(change, commit string) (*FileRewrite, error) {
	abs := filepath.Join(p.Root.ChangeDir(change), ".openspec.yaml")
	raw, err := p.Root.ReadFile(abs)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	line := "base: \"" + commit + "\""
	var next string
	if !exists {
		schema, err := p.Root.SchemaName(change)
		if err != nil {
			return nil, err
		}
		next = "schema: " + schema + "\n" + line + "\n"
	} else {
		old := string(raw)
		ls := strings.SplitAfter(old, "\n")
		replaced := false
		for i, l := range ls {
			if strings.HasPrefix(l, "base:") {
				eol := l[len(strings.TrimRight(l, "\r\n")):]
				ls[i], replaced = line+eol, true
			}
		}
		next = strings.Join(ls, "")
		if !replaced {
			if next != "" && !strings.HasSuffix(next, "\n") {
				next += "\n"
			}
			next += line + "\n"
		}
	}
	show := p.show(abs)
	return &FileRewrite{Path: show, abs: abs, Exists: exists, Old: string(raw), New: next, Diff: spec.UnifiedDiff(show, string(raw), next, exists)}, nil
}

// Apply writes the rebase through an intent journal in journalDir (see
// internal/journal): every file still holding the bytes the plan read is
// replaced atomically; a process killed part-way is finished by the next
// command.
func (res *RebaseResult) Apply(root spec.Root, journalDir string) error {
	in := journal.Intent{What: fmt.Sprintf("rebase of %q", res.Change)}
	for _, f := range res.Files {
		real, err := root.Resolve(f.abs)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if fi, err := os.Stat(real); err == nil {
			mode = fi.Mode().Perm()
		}
		in.Writes = append(in.Writes, journal.Write{Path: real, Show: f.Path, Exists: f.Exists, Old: []byte(f.Old), New: []byte(f.New), Mode: mode})
	}
	if len(in.Writes) == 0 {
		return nil
	}
	return journal.Run(journalDir, in)
}

// Contents maps the absolute path of every file the rebase rewrites to
// its new bytes, for reading the result before it is written
// (spec.Root.WithFiles).
func (res *RebaseResult) Contents() map[string][]byte {
	out := make(map[string][]byte, len(res.Files))
	for _, f := range res.Files {
		out[f.abs] = []byte(f.New)
	}
	return out
}
