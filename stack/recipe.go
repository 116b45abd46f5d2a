package stack

import (
	"context"
	"strings"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/stack/ghapi"
)

// Recipe is a ticket's validation recipe: the commands of its
// "## Validation" section.
type Recipe struct {
	PerChange []string `json:"per_change"`
	AtReview  []string `json:"at_review"`
	// HasPerChange is set when the body has a "## Validation" section with
	// a "### Run per change" subsection (even one naming no command).
	HasPerChange bool `json:"-"`
}

// proseLine matches a line that states something instead of naming a
// command, optionally after a "Label:" prefix.
var proseLine = lazyregexp.New(`(?i)^(absent:|not applicable:|recipe measured\b|needs:|deferred repo gate:)`)

// labelPrefix is a leading "Label:" (optionally emphasised) before a
// line's content.
var labelPrefix = lazyregexp.New("^[*_]*[^`:*_]{1,60}[*_]*:[*_]*\\s*")

// listMarker is a Markdown list marker or task checkbox.
var listMarker = lazyregexp.New(`^(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?`)

// ParseRecipe extracts the validation recipe from a ticket body, by the
// rules of the implement-spec workflow: under "## Validation", the
// subsections "### Run per change" and "### Run at review"; a command is a
// line's first backticked span; a line with none, or a prose line
// ("absent: …", "not applicable: …", "Recipe measured …", "Needs: …",
// "Deferred repo gate: …", also after a "Label:"), names none; each
// command is kept once, two that differ only in whitespace being one, as
// first written.
func ParseRecipe(body string) Recipe {
	var r Recipe
	var inValidation bool
	var cur *[]string
	seen := map[*[]string]map[string]bool{&r.PerChange: {}, &r.AtReview: {}}
	for _, line := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		if level, text, ok := heading(line); ok {
			switch {
			case level <= 2:
				inValidation = level == 2 && strings.EqualFold(text, "validation")
				cur = nil
			case inValidation && level == 3 && strings.EqualFold(text, "run per change"):
				cur = &r.PerChange
				r.HasPerChange = true
			case inValidation && level == 3 && strings.EqualFold(text, "run at review"):
				cur = &r.AtReview
			case level == 3:
				cur = nil
			}
			continue
		}
		if cur == nil {
			continue
		}
		cmd, ok := LineCommand(line)
		if !ok {
			continue
		}
		key := NormalizeCommand(cmd)
		if seen[cur][key] {
			continue
		}
		seen[cur][key] = true
		*cur = append(*cur, cmd)
	}
	return r
}

// LineCommand returns the command one recipe line names, if any.
func LineCommand(line string) (string, bool) {
	s := strings.TrimSpace(line)
	s = strings.TrimSpace(strings.TrimLeft(s, ">"))
	s = listMarker.ReplaceAllString(s, "")
	if isProse(s) {
		return "", false
	}
	if rest := labelPrefix.ReplaceAllString(s, ""); rest != s && isProse(rest) {
		return "", false
	}
	cmd, ok := firstCodeSpan(s)
	if !ok || strings.TrimSpace(cmd) == "" {
		return "", false
	}
	return cmd, true
}

func isProse(s string) bool {
	return proseLine.MatchString(strings.TrimLeft(s, "*_ "))
}

// firstCodeSpan returns the content of the first backticked span: a run
// of n backticks closed by the next run of exactly n.
func firstCodeSpan(s string) (string, bool) {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := runLen(s, i)
		open := i + n
		for j := open; j < len(s); {
			if s[j] != '`' {
				j++
				continue
			}
			m := runLen(s, j)
			if m == n {
				return strings.TrimSpace(s[open:j]), true
			}
			j += m
		}
		i = open
	}
	return "", false
}

func runLen(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// NormalizeCommand is the key two commands share when they differ only in
// whitespace.
func NormalizeCommand(cmd string) string { return strings.Join(strings.Fields(cmd), " ") }

// heading parses an ATX heading ("## Text") into its level and text.
func heading(line string) (int, string, bool) {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return 0, "", false
	}
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0, "", false
	}
	text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[n:]), "#"))
	return n, text, true
}

// RecipeSet is the recipes of a spec's tickets, as the workflow renders
// them: the per-change and at-review unions and each ticket's own lists.
type RecipeSet struct {
	PerChange []string           `json:"per_change"`
	AtReview  []string           `json:"at_review"`
	Tickets   map[string]*Recipe `json:"tickets"`
	// Missing lists tickets without a "### Run per change" subsection
	// under "## Validation".
	Missing []TicketRef `json:"missing"`
}

// TicketRef names a ticket.
type TicketRef struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
}

// Recipes gathers the recipes of tickets, in order.
func Recipes(tickets []*Ticket) RecipeSet {
	set := RecipeSet{PerChange: []string{}, AtReview: []string{}, Tickets: map[string]*Recipe{}, Missing: []TicketRef{}}
	seenPC, seenAR := map[string]bool{}, map[string]bool{}
	for _, t := range tickets {
		r := ParseRecipe(t.Body)
		if r.PerChange == nil {
			r.PerChange = []string{}
		}
		if r.AtReview == nil {
			r.AtReview = []string{}
		}
		if !r.HasPerChange {
			set.Missing = append(set.Missing, TicketRef{t.Number, t.Title})
		}
		set.Tickets[itoa(t.Number)] = &r
		for _, c := range r.PerChange {
			if k := NormalizeCommand(c); !seenPC[k] {
				seenPC[k] = true
				set.PerChange = append(set.PerChange, c)
			}
		}
		for _, c := range r.AtReview {
			if k := NormalizeCommand(c); !seenAR[k] {
				seenAR[k] = true
				set.AtReview = append(set.AtReview, c)
			}
		}
	}
	return set
}

// SpecRecipes reads the recipes of a spec's open tickets that do not need
// a human (humanLabel, "" for DefaultHumanLabel), in the spec's order.
func SpecRecipes(ctx context.Context, gh *ghapi.Client, spec int, humanLabel string) (RecipeSet, error) {
	if humanLabel == "" {
		humanLabel = DefaultHumanLabel
	}
	_, tickets, _, err := LoadTickets(ctx, gh, spec, humanLabel)
	if err != nil {
		return RecipeSet{}, err
	}
	var agent []*Ticket
	for _, t := range tickets {
		if !t.Human {
			agent = append(agent, t)
		}
	}
	return Recipes(agent), nil
}
