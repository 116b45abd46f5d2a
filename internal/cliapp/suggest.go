package cliapp

import "github.com/specstack/specstack/internal/editdist"

// closest returns the candidate word was most likely a typo of, or ""
// when none is near enough to be worth naming: the one a least number
// of edits away (an inserted, deleted or changed character, or two
// neighbours swapped: "rnu" is one edit from "run"), when that number is
// at most a third of word's length and at most 2. Two candidates equally
// near name neither: a guess between them would mislead as often as help.
func closest(word string, candidates []string) string {
	limit := min(len([]rune(word))/3, 2)
	best, bestDist, tie := "", limit+1, false
	for _, c := range candidates {
		d := editdist.OSA([]rune(word), []rune(c))
		switch {
		case d < bestDist:
			best, bestDist, tie = c, d, false
		case d == bestDist && c != best:
			tie = true
		}
	}
	if best == "" || tie {
		return ""
	}
	return best
}
