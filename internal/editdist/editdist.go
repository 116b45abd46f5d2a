// Package editdist measures how many single-element edits turn one
// sequence into another: jj-openspec's "Did you mean" of OpenSpec's
// verbs ranks names by Levenshtein distance in UTF-16 units, as OpenSpec
// does; the three binaries' "did you mean" of a mistyped verb or flag
// counts a swap of two neighbours as one edit too (OSA), in runes.
//
// Both take time proportional to len(a)·len(b) and space to len(b).
package editdist

// Levenshtein is the edit distance of a and b: each insertion, deletion
// and substitution of one element counts one.
func Levenshtein[T comparable](a, b []T) int { return distance(a, b, false) }

// OSA is the optimal string alignment distance of a and b: Levenshtein's
// edits and each swap of two adjacent elements count one ("rnu" is one
// from "run"); no part of a swapped pair is edited again.
func OSA[T comparable](a, b []T) int { return distance(a, b, true) }

func distance[T comparable](a, b []T, swaps bool) int {
	// rows i-2, i-1 and i of the table, over the elements of b.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if swaps && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
