// Package stack turns a GitHub spec issue and its sub-issue tickets into a
// stack of pull requests: the ticket graph and its layers, validation
// recipes, and linking branches into a native stack or a --base chain.
package stack

import (
	"strconv"
	"strings"

	"github.com/specstack/specstack/internal/lazyregexp"
)

// DefaultHumanLabel marks a ticket that needs a person.
const DefaultHumanLabel = "ready-for-human"

// EdgeSource says where a ticket's blockers were read.
type EdgeSource string

const (
	EdgesAPI   EdgeSource = "api"   // GitHub's issue dependencies
	EdgesProse EdgeSource = "prose" // the body's "Blocked by" section
	EdgesNone  EdgeSource = "none"  // neither names a blocker
)

// Ticket is one open sub-issue of the spec.
type Ticket struct {
	Number   int    `json:"number"`
	Title    string `json:"title"`
	Body     string `json:"-"`
	Position int    `json:"position"` // index in the spec's own order of sub-issues
	Human    bool   `json:"human,omitempty"`
	// BlockedBy are the ticket's blockers among the spec's open tickets.
	BlockedBy []int      `json:"blocked_by"`
	Source    EdgeSource `json:"edge_source"`
	// External are open blockers outside the spec's tickets, reported but
	// not scheduled.
	External []int `json:"external_blockers,omitempty"`
}

var (
	issueRef = lazyregexp.New(`(?:^|[^\w&/])#(\d+)\b|/issues/(\d+)\b`)
)

// ProseBlockers reads the issue numbers of a body's "Blocked by" section:
// a heading whose text starts with "Blocked by" (everything up to the next
// heading of the same or a higher level), or a "Blocked by:" line.
func ProseBlockers(body string) []int {
	var res []int
	seen := map[int]bool{}
	add := func(s string) {
		for _, m := range issueRef.FindAllStringSubmatch(s, -1) {
			d := m[1]
			if d == "" {
				d = m[2]
			}
			n, err := strconv.Atoi(d)
			if err == nil && n > 0 && !seen[n] {
				seen[n] = true
				res = append(res, n)
			}
		}
	}
	section := 0 // level of the open "Blocked by" heading, 0 for none
	for _, line := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		if level, text, ok := heading(line); ok {
			if section != 0 && level <= section {
				section = 0
			}
			if isBlockedBy(text) {
				section = level
				add(text[len("blocked by"):])
			}
			continue
		}
		if section != 0 {
			add(line)
			continue
		}
		s := strings.TrimLeft(strings.TrimSpace(line), "-*+> ")
		s = strings.TrimLeft(s, "*_")
		if isBlockedBy(s) {
			if _, rest, ok := strings.Cut(s, ":"); ok {
				add(rest)
			}
		}
	}
	return res
}

func isBlockedBy(s string) bool {
	return len(s) >= 10 && strings.EqualFold(s[:10], "blocked by")
}

func itoa(n int) string { return strconv.Itoa(n) }
