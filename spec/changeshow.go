package spec

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/spec/internal/jstext"
)

// A change as OpenSpec 1.13's "show CHANGE --json" reads it: its
// ChangeParser (parseChangeWithDeltas) over proposal.md and the delta
// specs, and the change command's title.

// ChangeDelta is one delta: a requirement added, modified or removed
// (Requirement), or renamed (Rename); a delta read from the proposal's
// "What Changes" bullets has neither.
type ChangeDelta struct {
	Spec        string
	Operation   string // ADDED, MODIFIED, REMOVED, RENAMED
	Description string
	Requirement *Requirement
	Rename      *Rename
}

// ChangeDoc is a change's title and deltas.
type ChangeDoc struct {
	Title  string
	Deltas []ChangeDelta
}

// ErrNotRead is a change ReadChangeDoc leaves to OpenSpec: its proposal
// lacks a Why or What Changes section (OpenSpec's error), or a symbolic
// link inside the repository sits in the change (OpenSpec confines those
// its own way).
var ErrNotRead = errors.New("not read natively")

// ReadChangeDoc reads change as OpenSpec's ChangeParser does. A link out
// of the repository anywhere under the change is ErrOutside; a missing
// proposal.md is fs.ErrNotExist.
func (r Root) ReadChangeDoc(change string) (ChangeDoc, error) {
	p, err := r.parseChange(change)
	if err != nil {
		return ChangeDoc{}, err
	}
	if p.why == "" || p.what == "" {
		return ChangeDoc{}, fmt.Errorf("change %q: %w: its proposal has no Why or What Changes section", change, ErrNotRead)
	}
	return p.doc, nil
}

// parsedChange is what ChangeParser.parseChangeWithDeltas reads: the
// proposal's Why and What Changes sections as written ("" when missing
// or empty; then doc is not read, as OpenSpec throws there) and the
// change's title and deltas.
type parsedChange struct {
	why, what string
	doc       ChangeDoc
}

func (r Root) parseChange(change string) (parsedChange, error) {
	dir := r.ChangeDir(change)
	linked, err := r.treeLinks(dir)
	if err != nil {
		return parsedChange{}, err
	}
	raw, err := r.ReadText(filepath.Join(dir, "proposal.md"))
	if err != nil {
		return parsedChange{}, err
	}
	lines := strings.Split(jstext.NormalizeNewlines(string(raw), true), "\n")
	secs := parseMDSections(lines, osFenceMask(lines))
	var p parsedChange
	if why := findMDSection(secs, "Why"); why != nil {
		p.why = why.content
	}
	if what := findMDSection(secs, "What Changes"); what != nil {
		p.what = what.content
	}
	if p.why == "" || p.what == "" {
		return p, nil
	}
	specs := filepath.Join(dir, "specs")
	if linked {
		return p, fmt.Errorf("change %q: %w: a link under %s", change, ErrNotRead, dir)
	}
	files, err := discoverSpecs(specs, false) // OpenSpec's discovery: a non-file spec.md is skipped
	if err != nil {
		return p, fmt.Errorf("change %q: %w: %w", change, ErrNotRead, err)
	}
	p.doc = ChangeDoc{Title: changeTitle(string(raw), change)}
	sections := false
	for _, f := range files {
		b, err := r.ReadText(f.Path)
		if err != nil {
			continue // OpenSpec skips a spec file it cannot read
		}
		plan := ParseDelta(string(b))
		sections = sections || plan.HasSections()
		p.doc.Deltas = append(p.doc.Deltas, specDeltas(f.ID, plan)...)
	}
	if !sections {
		p.doc.Deltas = proseDeltas(p.what)
	}
	return p, nil
}

// specDeltas is ChangeParser.parseSpecDeltas: ADDED, MODIFIED, REMOVED
// (in document order; a bullet-form entry is a header with no body), then
// RENAMED.
func specDeltas(id string, p DeltaPlan) []ChangeDelta {
	var out []ChangeDelta
	add := func(op, verb string, blocks []Block) {
		for _, b := range blocks {
			for _, q := range blockRequirements(b) {
				out = append(out, ChangeDelta{Spec: id, Operation: op, Description: verb + " requirement: " + q.Text, Requirement: &q})
			}
		}
	}
	add("ADDED", "Add", p.Added)
	add("MODIFIED", "Modify", p.Modified)
	blocks := append([]Block(nil), p.RemovedBlocks...)
	var removed []Block
	for _, name := range p.Removed {
		b := Block{HeaderLine: "### Requirement: " + name, Name: name, Raw: "### Requirement: " + name}
		for i := range blocks {
			if blocks[i].Name == name {
				b = blocks[i]
				blocks = append(blocks[:i], blocks[i+1:]...)
				break
			}
		}
		removed = append(removed, b)
	}
	add("REMOVED", "Remove", removed)
	for _, rn := range p.Renamed {
		out = append(out, ChangeDelta{Spec: id, Operation: "RENAMED",
			Description: `Rename requirement from "` + rn.From + `" to "` + rn.To + `"`, Rename: &rn})
	}
	return out
}

// blockRequirements is ChangeParser.toRequirements for one block: its
// header made canonical ("### Requirement: …"), its text read as a
// section; nothing when that section is not a requirement.
func blockRequirements(b Block) []Requirement {
	header, body, _ := strings.Cut(b.Raw, "\n")
	title := jstext.Trim(strings.TrimPrefix(header, "###")) // a block's header starts with "###"
	text := "### " + title
	if strings.Contains(b.Raw, "\n") {
		text += "\n" + body
	}
	lines := strings.Split(jstext.NormalizeNewlines(text, true), "\n")
	secs := parseMDSections(lines, osFenceMask(lines))
	if len(secs) == 0 || !requirementTitle.MatchString(jstext.Trim(secs[0].title)) {
		return nil
	}
	return []Requirement{requirementOf(secs[0])}
}

var (
	requirementTitle = lazyregexp.New(`(?i)^Requirement:` + jsSpace + `*[^` + jsSpaces + `]`)
	// changeTitleRE is /^#\s+(?:Change:\s+)?(.+)$/im over text whose line
	// terminators are all "\n" (which changes no match: each is one for
	// ^, $, \s and .).
	changeTitleRE = lazyregexp.New(`(?im)^#` + jsSpace + `+(?:change:` + jsSpace + `+)?([^\n]+)$`)
	// proseDelta is /^\s*-\s*\*\*([^*:]+)(?::\*\*|\*\*:)\s*(.+)$/ on one
	// line of "What Changes".
	proseDelta = lazyregexp.New(`^` + jsSpace + `*-` + jsSpace + `*\*\*([^*:]+)(?:[:]\*\*|\*\*:)` + jsSpace + `*([^\n\r\x{2028}\x{2029}]+)$`)
	renameWord = lazyregexp.New(`\brename(s|d|ing)?\b|\brenamed\s+(to|from)\b`)
	addWord    = lazyregexp.New(`\badd(s|ed|ing)?\b|\bcreate(s|d|ing)?\b|\bnew\b`)
	removeWord = lazyregexp.New(`\bremove(s|d|ing)?\b|\bdelete(s|d|ing)?\b`)
)

// jsSpace is JavaScript's \s (jsSpaces, its characters).
const (
	jsSpaces = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`
	jsSpace  = `[` + jsSpaces + `]`
)

// changeTitle is the change command's extractTitle: the first level-1
// heading (without "Change:"), unless it is the template's bare
// "# Proposal"; else the change's name.
func changeTitle(content, change string) string {
	content = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n").Replace(content)
	m := changeTitleRE.FindStringSubmatch(content)
	if m == nil {
		return change
	}
	if t := jstext.Trim(m[1]); t != "" && strings.ToLower(t) != "proposal" {
		return t
	}
	return change
}

// proseDeltas is MarkdownParser.parseDeltas: "- **spec:** what" bullets
// of What Changes, the operation guessed from the words used.
func proseDeltas(content string) []ChangeDelta {
	var out []ChangeDelta
	for _, line := range strings.Split(content, "\n") {
		m := proseDelta.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		d := ChangeDelta{Spec: jstext.Trim(m[1]), Operation: "MODIFIED", Description: jstext.Trim(m[2])}
		switch lower := strings.ToLower(d.Description); {
		case renameWord.MatchString(lower):
			d.Operation = "RENAMED"
		case addWord.MatchString(lower):
			d.Operation = "ADDED"
		case removeWord.MatchString(lower):
			d.Operation = "REMOVED"
		}
		out = append(out, d)
	}
	return out
}
