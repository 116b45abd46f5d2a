package stack

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
)

// Excluded is a ticket left out of the automated stack.
type Excluded struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Reason string `json:"reason"`
}

// Layer is one layer of the stack: tickets whose blockers are all in
// lower layers.
type Layer struct {
	Layer   int       `json:"layer"`
	Tickets []*Ticket `json:"tickets"`
}

// Graph is a spec's tickets arranged for building.
type Graph struct {
	Layers   []Layer    `json:"layers"`
	Excluded []Excluded `json:"excluded"`
}

// CycleError names a cycle among tickets.
type CycleError struct{ Cycle []int }

func (e *CycleError) Error() string {
	parts := make([]string, len(e.Cycle))
	for i, n := range e.Cycle {
		parts[i] = fmt.Sprintf("#%d", n)
	}
	return "tickets block each other in a cycle: " + strings.Join(parts, " → ") +
		"; remove one of these blocked-by edges on GitHub"
}

// BuildGraph arranges tickets (open sub-issues, in the spec's order, with
// BlockedBy and Human set): a cycle is an error naming it; human tickets
// and everything that depends on them are excluded; the rest are layered
// in topological order, ties broken by the spec's order, then by number.
func BuildGraph(tickets []*Ticket) (*Graph, error) {
	byNum := map[int]*Ticket{}
	for _, t := range tickets {
		byNum[t.Number] = t
	}
	if c := findCycle(tickets, byNum); c != nil {
		return nil, exitcode.Wrap(exitcode.Invalid, &CycleError{Cycle: c})
	}
	g := &Graph{Layers: []Layer{}, Excluded: []Excluded{}}
	excluded := map[int]string{}
	// Exclusion spreads along blocked-by edges; iterate to a fixed point
	// (the graph is acyclic, so this ends).
	for changed := true; changed; {
		changed = false
		for _, t := range tickets {
			if _, done := excluded[t.Number]; done {
				continue
			}
			if t.Human {
				excluded[t.Number] = "needs a human"
				changed = true
				continue
			}
			for _, b := range t.BlockedBy {
				if _, ex := excluded[b]; ex {
					excluded[t.Number] = fmt.Sprintf("blocked by #%d, which is excluded", b)
					changed = true
					break
				}
			}
		}
	}
	for _, t := range tickets {
		if r, ok := excluded[t.Number]; ok {
			g.Excluded = append(g.Excluded, Excluded{t.Number, t.Title, r})
		}
	}
	layerOf := map[int]int{}
	var depth func(t *Ticket) int
	depth = func(t *Ticket) int {
		if d, ok := layerOf[t.Number]; ok {
			return d
		}
		d := 1
		for _, b := range t.BlockedBy {
			d = max(d, depth(byNum[b])+1)
		}
		layerOf[t.Number] = d
		return d
	}
	for _, t := range tickets {
		if _, ex := excluded[t.Number]; ex {
			continue
		}
		d := depth(t)
		for len(g.Layers) < d {
			g.Layers = append(g.Layers, Layer{Layer: len(g.Layers) + 1, Tickets: []*Ticket{}})
		}
		g.Layers[d-1].Tickets = append(g.Layers[d-1].Tickets, t)
	}
	for _, l := range g.Layers {
		sort.SliceStable(l.Tickets, func(i, j int) bool {
			a, b := l.Tickets[i], l.Tickets[j]
			if a.Position != b.Position {
				return a.Position < b.Position
			}
			return a.Number < b.Number
		})
	}
	return g, nil
}

// findCycle returns one cycle (first ticket repeated at the end), or nil.
func findCycle(tickets []*Ticket, byNum map[int]*Ticket) []int {
	const (
		white = iota
		grey
		black
	)
	color := map[int]int{}
	var stack []int
	var found []int
	var visit func(n int) bool
	visit = func(n int) bool {
		color[n] = grey
		stack = append(stack, n)
		blockers := slices.Clone(byNum[n].BlockedBy)
		sort.Ints(blockers)
		for _, b := range blockers {
			switch color[b] {
			case grey:
				i := slices.Index(stack, b)
				found = append(slices.Clone(stack[i:]), b)
				return true
			case white:
				if visit(b) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
		return false
	}
	for _, t := range tickets {
		if color[t.Number] == white && visit(t.Number) {
			return found
		}
	}
	return nil
}
