package conflict

import "sort"

// pair is one matched line: a[A] == b[B].
type pair struct{ A, B int }

// dpLimit bounds the quadratic fallback of matchLines (cells of the table).
const dpLimit = 1 << 20

// interner numbers distinct lines so comparisons are integer compares.
type interner map[string]int

func (in interner) ids(lines []string) []int {
	out := make([]int, len(lines))
	for i, l := range lines {
		id, ok := in[l]
		if !ok {
			id = len(in)
			in[l] = id
		}
		out[i] = id
	}
	return out
}

// matchLines returns a common subsequence of a and b as increasing pairs.
// It trims the common prefix and suffix, anchors on lines that occur once
// in each side (patience diff) and recurses between anchors; a region
// with no unique anchors falls back to an exact LCS when small, and is
// left unmatched otherwise. Any result is a valid matching; the method
// only decides how close to the longest it gets.
func matchLines[T comparable](a, b []T) []pair {
	out := make([]pair, 0, min(len(a), len(b)))
	matchRange(a, b, 0, len(a), 0, len(b), &out)
	return out
}

func matchRange[T comparable](a, b []T, aLo, aHi, bLo, bHi int, out *[]pair) {
	for aLo < aHi && bLo < bHi && a[aLo] == b[bLo] {
		*out = append(*out, pair{aLo, bLo})
		aLo++
		bLo++
	}
	sa := aHi
	for aLo < aHi && bLo < bHi && a[aHi-1] == b[bHi-1] {
		aHi--
		bHi--
	}
	defer func(aHi, bHi int) {
		for i := aHi; i < sa; i++ {
			*out = append(*out, pair{i, bHi + i - aHi})
		}
	}(aHi, bHi)
	if aLo == aHi || bLo == bHi {
		return
	}
	if anchors := uniqueAnchors(a, b, aLo, aHi, bLo, bHi); len(anchors) > 0 {
		pa, pb := aLo, bLo
		for _, p := range anchors {
			matchRange(a, b, pa, p.A, pb, p.B, out)
			*out = append(*out, p)
			pa, pb = p.A+1, p.B+1
		}
		matchRange(a, b, pa, aHi, pb, bHi, out)
		return
	}
	if (aHi-aLo)*(bHi-bLo) <= dpLimit {
		lcsDP(a, b, aLo, aHi, bLo, bHi, out)
	}
}

// uniqueAnchors returns the longest increasing run of lines that occur
// exactly once in a[aLo:aHi] and once in b[bLo:bHi].
func uniqueAnchors[T comparable](a, b []T, aLo, aHi, bLo, bHi int) []pair {
	type seen struct{ na, nb, ia, ib int }
	m := make(map[T]*seen, aHi-aLo)
	for i := aLo; i < aHi; i++ {
		s := m[a[i]]
		if s == nil {
			s = &seen{}
			m[a[i]] = s
		}
		s.na++
		s.ia = i
	}
	for j := bLo; j < bHi; j++ {
		if s := m[b[j]]; s != nil {
			s.nb++
			s.ib = j
		}
	}
	var cands []pair
	for _, s := range m {
		if s.na == 1 && s.nb == 1 {
			cands = append(cands, pair{s.ia, s.ib})
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].A < cands[j].A })
	return longestIncreasingB(cands)
}

// longestIncreasingB returns the longest subsequence of ps (sorted by A)
// whose B values increase (patience sorting).
func longestIncreasingB(ps []pair) []pair {
	tails := []int{} // index into ps of the smallest tail of each length
	prev := make([]int, len(ps))
	for i, p := range ps {
		k := sort.Search(len(tails), func(k int) bool { return ps[tails[k]].B >= p.B })
		if k > 0 {
			prev[i] = tails[k-1]
		} else {
			prev[i] = -1
		}
		if k == len(tails) {
			tails = append(tails, i)
		} else {
			tails[k] = i
		}
	}
	out := make([]pair, len(tails))
	for i, k := len(tails)-1, tails[len(tails)-1]; i >= 0; i, k = i-1, prev[k] {
		out[i] = ps[k]
	}
	return out
}

// lcsDP appends an exact longest common subsequence of the ranges.
func lcsDP[T comparable](a, b []T, aLo, aHi, bLo, bHi int, out *[]pair) {
	n, m := aHi-aLo, bHi-bLo
	w := m + 1
	t := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[aLo+i] == b[bLo+j]:
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[aLo+i] == b[bLo+j]:
			*out = append(*out, pair{aLo + i, bLo + j})
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
}
