package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/spec"
)

// A pipeline applies several changes, each an ordinary apply in its own
// member workspace, with its own ledger directory, bookmark and tail.
// Everything it will run is resolved before anything is dispatched:
// the supply (names and selectors), the filter (each exclusion noted),
// the dependency order and the stacks.

// Exclusion is a supplied change the pipeline does not apply, and why.
type Exclusion struct {
	Change string `json:"change" toml:"change"`
	Reason string `json:"reason" toml:"reason"`
}

// Supply is the resolved, de-duplicated pipeline set.
type Supply struct {
	// Members are apply-ready, in supply order.
	Members  []string
	Width    map[string]int // worker workspaces per member
	Excluded []Exclusion
}

// Selector is one --select: a glob over change names and/or a status
// (no-tasks, in-progress or complete), both required to match when both
// are given ("add-*,status=in-progress").
type Selector struct {
	Glob   string
	Status string
}

var statuses = []string{"no-tasks", "in-progress", "complete"}

// ParseSelector reads SELECTOR: comma-separated terms, each a glob
// (path.Match syntax) or status=STATUS.
func ParseSelector(s string) (Selector, error) {
	var sel Selector
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		switch {
		case term == "":
			return sel, exitcode.New(exitcode.Usage, "--select %q: an empty term; give a glob such as add-* and/or status=in-progress", s)
		case strings.HasPrefix(term, "status="):
			if sel.Status != "" {
				return sel, exitcode.New(exitcode.Usage, "--select %q: two status terms; give one (or two --select flags for either)", s)
			}
			sel.Status = strings.TrimPrefix(term, "status=")
			if !slices.Contains(statuses, sel.Status) {
				return sel, exitcode.New(exitcode.Usage, "--select %q: unknown status %q; give one of %s", s, sel.Status, strings.Join(statuses, ", "))
			}
		default:
			if sel.Glob != "" {
				return sel, exitcode.New(exitcode.Usage, "--select %q: two globs; give one (or two --select flags for either)", s)
			}
			if _, err := path.Match(term, ""); err != nil {
				return sel, exitcode.New(exitcode.Usage, "--select %q: bad glob %q: %v", s, term, err)
			}
			sel.Glob = term
		}
	}
	return sel, nil
}

func (s Selector) matches(c spec.ChangeSummary) bool {
	if s.Glob != "" {
		if ok, _ := path.Match(s.Glob, c.Name); !ok {
			return false
		}
	}
	return s.Status == "" || s.Status == c.Status
}

// Candidates resolves explicit names and selectors to one de-duplicated
// list (explicit names first, in the order given, then selector matches
// by name). An explicit name that is not an active change is kept: the
// filter excludes it with a note.
func Candidates(r spec.Root, names []string, sels []Selector) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range names {
		add(n)
	}
	if len(sels) == 0 {
		return out, nil
	}
	cs, err := r.ListChanges(true)
	if err != nil {
		return nil, fmt.Errorf("list the active changes for --select: %w", err)
	}
	for _, c := range cs {
		if len(c.Nested) > 0 {
			continue
		}
		for _, s := range sels {
			if s.matches(c) {
				add(c.Name)
				break
			}
		}
	}
	return out, nil
}

// Filter prepares each candidate as a single apply would (existence,
// readiness, health check, risk, distribution) and excludes, with a note,
// each one that would be refused (its bookmark existing too) or has
// nothing to do. A failure that is not the change's own (Ctrl-C, a
// missing tool, a held lock, a failed jj call) is returned: the pipeline
// must not go on as if that change had been judged and left out.
func Filter(ctx context.Context, env *apply.Env, candidates []string, tmpl apply.Request) (Supply, error) {
	s := Supply{Width: map[string]int{}}
	exclude := func(name string, err error) error {
		switch exitcode.Of(err) {
		case exitcode.Usage, exitcode.Invalid, exitcode.NeedsChoice:
			s.Excluded = append(s.Excluded, Exclusion{name, firstLine(err.Error())})
			return nil
		}
		return fmt.Errorf("check change %s for the pipeline: %w", name, err)
	}
	for _, name := range candidates {
		if err := ctx.Err(); err != nil {
			return s, exitcode.Wrap(exitcode.Interrupted, err)
		}
		if !record.ChangeName.MatchString(name) {
			s.Excluded = append(s.Excluded, Exclusion{name, "not a change name (letters, digits, '.', '_' and '-' only)"})
			continue
		}
		req := tmpl
		req.Change = name
		p, dec, err := apply.Prepare(ctx, env, req)
		if err == nil {
			err = apply.CheckBookmark(ctx, env.Repo, p.Bookmark, "")
		}
		if err == nil {
			err = apply.CheckOrigin(ctx, env.Repo, p)
		}
		if err != nil {
			if err := exclude(name, err); err != nil {
				return s, err
			}
			continue
		}
		if dec.Open == 0 {
			s.Excluded = append(s.Excluded, Exclusion{name, "no unticked tasks: nothing to apply (archive it with `jj openspec archive " + name + "`)"})
			continue
		}
		s.Members = append(s.Members, name)
		s.Width[name] = len(dec.Tasks)
	}
	return s, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Dep is a declared dependency: Change after On.
type Dep struct {
	Change string `json:"change" toml:"change"`
	On     string `json:"on" toml:"on"`
	From   string `json:"from" toml:"from"` // --after, or the proposal's "Depends on:" line
}

// ParseAfter reads one --after C:D (C lands after, and stacked on, D).
func ParseAfter(s string) (Dep, error) {
	c, d, ok := strings.Cut(s, ":")
	c, d = strings.TrimSpace(c), strings.TrimSpace(d)
	if !ok || c == "" || d == "" || strings.Contains(d, ":") {
		return Dep{}, exitcode.New(exitcode.Usage, "--after %q: give CHANGE:DEPENDENCY (the first lands after, stacked on, the second)", s)
	}
	if c == d {
		return Dep{}, exitcode.New(exitcode.Usage, "--after %q: a change cannot come after itself", s)
	}
	return Dep{Change: c, On: d, From: "--after"}, nil
}

var dependsOn = lazyregexp.New(`(?i)^[\s*_>-]*depends[ -]on[\s*_]*:[\s*_]*(.+)$`)

// ProposalDeps reads the "Depends on: a, b" lines of change's proposal.md.
func ProposalDeps(r spec.Root, change string) ([]Dep, error) {
	b, err := r.ReadFile(r.ChangeDir(change) + "/proposal.md")
	if err != nil {
		return nil, fmt.Errorf("read the proposal of %s for its dependencies: %w", change, err)
	}
	var out []Dep
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		m := dependsOn.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		for _, d := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			d = strings.Trim(d, "`*_.")
			if d != "" && d != change {
				out = append(out, Dep{Change: change, On: d, From: "proposal.md"})
			}
		}
	}
	return out, sc.Err()
}

// Layout is the pipeline's order: independent members, stacks (bottom
// first, each member based on the one below) and members that cannot run
// because of a dependency cycle.
type Layout struct {
	Independent []string    `json:"independent" toml:"independent"`
	Stacks      [][]string  `json:"stacks" toml:"stacks"`
	Cycles      [][]string  `json:"cycles,omitempty" toml:"cycles,omitempty"`
	Blocked     []Exclusion `json:"blocked,omitempty" toml:"blocked,omitempty"`
	Notes       []string    `json:"notes,omitempty" toml:"notes,omitempty"`
	Deps        []Dep       `json:"deps,omitempty" toml:"deps,omitempty"`
}

// Arrange orders members by deps. A dependency on a change outside the
// set is noted and ignored. Members joined by dependencies form one
// stack in topological order (ties in supply order); a cycle's members,
// and the members depending on them, are blocked, the cycle named.
func Arrange(members []string, deps []Dep) Layout {
	var l Layout
	in := map[string]bool{}
	idx := map[string]int{}
	for i, m := range members {
		in[m], idx[m] = true, i
	}
	after := map[string][]string{} // change → the changes it comes after
	seenDep := map[[2]string]bool{}
	for _, d := range deps {
		if !in[d.Change] {
			l.Notes = append(l.Notes, fmt.Sprintf("%s after %s (%s): %s is not in the pipeline, ignored", d.Change, d.On, d.From, d.Change))
			continue
		}
		if !in[d.On] {
			l.Notes = append(l.Notes, fmt.Sprintf("%s after %s (%s): %s is not in the pipeline, %s is not stacked on it", d.Change, d.On, d.From, d.On, d.Change))
			continue
		}
		k := [2]string{d.Change, d.On}
		if seenDep[k] {
			continue
		}
		seenDep[k] = true
		l.Deps = append(l.Deps, d)
		after[d.Change] = append(after[d.Change], d.On)
	}
	// Cycles: strongly connected components of more than one member.
	inCycle := map[string]bool{}
	for _, scc := range sccs(members, after) {
		if len(scc) > 1 {
			slices.SortFunc(scc, func(a, b string) int { return idx[a] - idx[b] })
			l.Cycles = append(l.Cycles, scc)
			for _, m := range scc {
				inCycle[m] = true
			}
		}
	}
	// Blocked: in a cycle or after a blocked member (to a fixed point).
	blocked := map[string]string{}
	for m := range inCycle {
		blocked[m] = "in the dependency cycle " + cycleName(l.Cycles, m)
	}
	for changed := true; changed; {
		changed = false
		for _, m := range members {
			if blocked[m] != "" {
				continue
			}
			for _, d := range after[m] {
				if blocked[d] != "" {
					blocked[m] = "after " + d + ", which is " + blocked[d]
					changed = true
					break
				}
			}
		}
	}
	for _, m := range members {
		if blocked[m] != "" {
			l.Blocked = append(l.Blocked, Exclusion{m, blocked[m]})
		}
	}
	// Components over the undirected dependency graph of the runnable.
	comp := map[string]int{}
	var comps [][]string
	for _, m := range members {
		if blocked[m] != "" || comp[m] != 0 {
			continue
		}
		comps = append(comps, nil)
		id := len(comps)
		stack := []string{m}
		comp[m] = id
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			comps[id-1] = append(comps[id-1], x)
			var next []string
			next = append(next, after[x]...)
			for _, y := range members {
				if slices.Contains(after[y], x) {
					next = append(next, y)
				}
			}
			for _, y := range next {
				if blocked[y] == "" && comp[y] == 0 {
					comp[y] = id
					stack = append(stack, y)
				}
			}
		}
	}
	for _, c := range comps {
		if len(c) == 1 {
			l.Independent = append(l.Independent, c[0])
			continue
		}
		l.Stacks = append(l.Stacks, topo(c, after, idx))
	}
	return l
}

// topo orders the members of one acyclic component, dependencies first,
// ties in supply order.
func topo(c []string, after map[string][]string, idx map[string]int) []string {
	slices.SortFunc(c, func(a, b string) int { return idx[a] - idx[b] })
	done := map[string]bool{}
	var out []string
	for len(out) < len(c) {
		for _, m := range c {
			if done[m] {
				continue
			}
			ready := true
			for _, d := range after[m] {
				if !done[d] {
					ready = false
					break
				}
			}
			if ready {
				done[m] = true
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// sccs returns the strongly connected components of the graph m → after[m]
// (Tarjan's algorithm).
func sccs(nodes []string, after map[string][]string) [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	n := 0
	var visit func(v string)
	visit = func(v string) {
		n++
		index[v], low[v] = n, n
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range after[v] {
			if index[w] == 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			out = append(out, c)
		}
	}
	for _, v := range nodes {
		if index[v] == 0 {
			visit(v)
		}
	}
	return out
}

func cycleName(cycles [][]string, m string) string {
	for _, c := range cycles {
		if slices.Contains(c, m) {
			return cycleText(c)
		}
	}
	return ""
}

// cycleText writes cycle c as a → b → a.
func cycleText(c []string) string {
	return strings.Join(append(slices.Clone(c), c[0]), " → ")
}

// CycleError names the dependency cycles that stopped the stacking.
func (l Layout) CycleError() error {
	if len(l.Cycles) == 0 {
		return nil
	}
	var names []string
	for _, c := range l.Cycles {
		names = append(names, cycleText(c))
	}
	return exitcode.New(exitcode.Usage, "dependency cycle %s: those changes were not applied; remove one of the dependencies (--after, or a proposal's \"Depends on:\" line) and re-run", strings.Join(names, "; "))
}
