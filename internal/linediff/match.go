package linediff

import (
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Pair is one matched line: a[A] == b[B].
type Pair struct{ A, B int }

// maxIDs is how many distinct lines one diff tells apart: go-diff
// compares runes, and each distinct line becomes one valid code point
// (the surrogates skipped, as go-diff's own line mode does).
const maxIDs = utf8.MaxRune + 1 - (surrogateEnd - surrogateStart)

const surrogateStart, surrogateEnd = 0xD800, 0xE000

// maxCells bounds the regions go-diff is given, as old lines × new
// lines: Myers' algorithm takes up to (n+m)·D steps for D differing
// lines; at the bound, 4,000 lines against the same lines shuffled or
// reversed take 0.2-0.4 s on the loaded development VM. A larger region
// is first cut at its anchors.
const maxCells = 1 << 24

// Match returns a common subsequence of a and b as pairs increasing in
// both A and B, as the package doc says: a longest one (go-diff's Myers
// diff) for inputs within maxCells, each run of deleted or inserted
// lines slid down as far as it goes.
func Match[T comparable](a, b []T) []Pair {
	return match(a, b, maxIDs, maxCells)
}

// match is Match with its bounds as parameters, so the fallbacks past
// them are tested.
func match[T comparable](a, b []T, ids, cells int) []Pair {
	out := make([]Pair, 0, min(len(a), len(b)))
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		out = append(out, Pair{pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if ra, ia, rb, ib, ok := encode(a[pre:len(a)-suf], b[pre:len(b)-suf], ids); ok {
		for _, p := range matchRunes(nil, ra, rb, 0, 0, cells) {
			out = append(out, Pair{pre + ia[p.A], pre + ib[p.B]})
		}
	}
	for k := range suf {
		out = append(out, Pair{len(a) - suf + k, len(b) - suf + k})
	}
	return slide(a, b, out)
}

// encode turns each distinct line of a and b into one rune and returns
// the runes of a that occur in b and those of b that occur in a (lines of
// one side only can never match: leaving them out changes no longest
// common subsequence and shortens the diff), with the index each had.
// ok is false when a and b hold more than ids distinct lines.
func encode[T comparable](a, b []T, ids int) (ra []rune, ia []int, rb []rune, ib []int, ok bool) {
	if len(a) == 0 || len(b) == 0 {
		return nil, nil, nil, nil, false
	}
	seen := make(map[T]int, len(a)+len(b))
	in := make([]uint8, 0, len(a)+len(b)) // per distinct line: 1 if in a, 2 if in b
	enc := func(lines []T, side uint8) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := seen[l]
			if !ok {
				if len(seen) == ids {
					return nil
				}
				id = len(seen)
				seen[l] = id
				in = append(in, 0)
			}
			in[id] |= side
			out[i] = id
		}
		return out
	}
	xa, xb := enc(a, 1), enc(b, 2)
	if xa == nil || xb == nil {
		return nil, nil, nil, nil, false
	}
	keep := func(xs []int) (rs []rune, idx []int) {
		rs, idx = make([]rune, 0, len(xs)), make([]int, 0, len(xs))
		for i, id := range xs {
			if in[id] == 3 {
				r := rune(id)
				if r >= surrogateStart {
					r += surrogateEnd - surrogateStart
				}
				rs, idx = append(rs, r), append(idx, i)
			}
		}
		return rs, idx
	}
	ra, ia = keep(xa)
	rb, ib = keep(xb)
	return ra, ia, rb, ib, true
}

// matchRunes appends the matches of ra and rb, offset by offA and offB.
// A region within cells goes to go-diff whole; a larger one is cut at
// the lines that occur once in each side, in the longest run whose
// order both sides agree on (patience diff's anchors), and each piece
// is matched in turn. A large region with no such line stays unmatched.
func matchRunes(out []Pair, ra, rb []rune, offA, offB, cells int) []Pair {
	if len(ra) == 0 || len(rb) == 0 {
		return out
	}
	if len(ra)*len(rb) <= cells {
		return appendDiff(out, ra, rb, offA, offB)
	}
	as := anchors(ra, rb)
	if len(as) == 0 {
		return out
	}
	pa, pb := 0, 0
	for _, p := range as {
		out = matchRunes(out, ra[pa:p.A], rb[pb:p.B], offA+pa, offB+pb, cells)
		out = append(out, Pair{offA + p.A, offB + p.B})
		pa, pb = p.A+1, p.B+1
	}
	return matchRunes(out, ra[pa:], rb[pb:], offA+pa, offB+pb, cells)
}

// appendDiff appends the lines go-diff keeps of ra and rb.
func appendDiff(out []Pair, ra, rb []rune, offA, offB int) []Pair {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // no deadline: the same diff on every machine
	i, j := offA, offB
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for k := range n {
				out = append(out, Pair{i + k, j + k})
			}
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			i += n
		case diffmatchpatch.DiffInsert:
			j += n
		}
	}
	return out
}

// anchors returns the longest run, increasing in both sides, of the
// lines that occur exactly once in a and once in b.
func anchors(a, b []rune) []Pair {
	type seen struct{ na, nb, ia, ib int }
	m := make(map[rune]*seen, len(a))
	for i, r := range a {
		s := m[r]
		if s == nil {
			s = &seen{}
			m[r] = s
		}
		s.na, s.ia = s.na+1, i
	}
	for j, r := range b {
		if s := m[r]; s != nil {
			s.nb, s.ib = s.nb+1, j
		}
	}
	var ps []Pair
	for _, s := range m {
		if s.na == 1 && s.nb == 1 {
			ps = append(ps, Pair{s.ia, s.ib})
		}
	}
	if len(ps) == 0 {
		return nil
	}
	slices.SortFunc(ps, func(x, y Pair) int { return x.A - y.A })
	// Patience sorting: tails[k] is the pair ending the best run of
	// length k+1 found so far, prev links each pair to its predecessor.
	var tails []int
	prev := make([]int, len(ps))
	for i, p := range ps {
		k := sort.Search(len(tails), func(k int) bool { return ps[tails[k]].B >= p.B })
		prev[i] = -1
		if k > 0 {
			prev[i] = tails[k-1]
		}
		if k == len(tails) {
			tails = append(tails, i)
		} else {
			tails[k] = i
		}
	}
	out := make([]Pair, len(tails))
	for i, k := len(tails)-1, tails[len(tails)-1]; i >= 0; i, k = i-1, prev[k] {
		out[i] = ps[k]
	}
	return out
}
