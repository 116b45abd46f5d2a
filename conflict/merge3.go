package conflict

import (
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/linediff"
)

// ChunkKind says how a region of a three-way merge came out.
type ChunkKind uint8

// The kinds of merge chunks.
const (
	Unchanged    ChunkKind = iota // base, left and right agree
	LeftChanged                   // only left changed it: take left
	RightChanged                  // only right changed it: take right
	BothSame                      // both changed it the same way
	Conflicting                   // both changed it differently
)

// Chunk is one region of a three-way merge: the lines of each version.
type Chunk struct {
	Kind              ChunkKind
	Base, Left, Right []string
}

// Merged returns the chunk's lines when it is not Conflicting.
func (c Chunk) Merged() []string {
	switch c.Kind {
	case RightChanged:
		return c.Right
	case Conflicting:
		return nil
	}
	return c.Left
}

// Chunks splits a line-level three-way merge of base, left and right into
// regions, in order. Lines keep their line ends, so a last line without
// one differs from the same line with one.
func Chunks(base, left, right []string) []Chunk {
	var out []Chunk
	for _, sp := range spans(base, left, right) {
		out = append(out, Chunk{Kind: sp.kind, Base: base[sp.o0:sp.o1], Left: left[sp.l0:sp.l1], Right: right[sp.r0:sp.r1]})
	}
	return out
}

// span is a chunk as index ranges into the three versions.
type span struct {
	kind           ChunkKind
	o0, o1, l0, l1 int
	r0, r1         int
}

// spans runs diff3 over line ids: runs of base lines matched in both
// sides at the same offsets are Unchanged; what lies between them is
// classified by comparing the three versions of the region.
func spans[T comparable](o, l, r []T) []span {
	toL := matchMap(len(o), linediff.Match(o, l))
	toR := matchMap(len(o), linediff.Match(o, r))
	var out []span
	i, j, k := 0, 0, 0
	for {
		i0, j0, k0 := i, j, k
		for i < len(o) && toL[i] == j && toR[i] == k {
			i, j, k = i+1, j+1, k+1
		}
		if i > i0 {
			out = append(out, span{Unchanged, i0, i, j0, j, k0, k})
		}
		if i == len(o) && j == len(l) && k == len(r) {
			return out
		}
		i2 := i
		for i2 < len(o) && (toL[i2] < 0 || toR[i2] < 0) {
			i2++
		}
		j2, k2 := len(l), len(r)
		if i2 < len(o) {
			j2, k2 = toL[i2], toR[i2]
		}
		out = append(out, span{classify(o[i:i2], l[j:j2], r[k:k2]), i, i2, j, j2, k, k2})
		i, j, k = i2, j2, k2
	}
}

func matchMap(n int, ps []linediff.Pair) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = -1
	}
	for _, p := range ps {
		m[p.A] = p.B
	}
	return m
}

func classify[T comparable](o, l, r []T) ChunkKind {
	switch {
	case equalIDs(l, r) && equalIDs(o, l):
		return Unchanged
	case equalIDs(o, r):
		return LeftChanged
	case equalIDs(o, l):
		return RightChanged
	case equalIDs(l, r):
		return BothSame
	}
	return Conflicting
}

func equalIDs[T comparable](a, b []T) bool { return slices.Equal(a, b) }

// Labels names the three versions in conflict markers.
type Labels struct{ Base, Left, Right string }

// detectEOL returns "\r\n" when the first line end of every non-empty
// text is CRLF, as jj decides, else "\n".
func detectEOL(texts ...string) string {
	crlf, seen := true, false
	for _, t := range texts {
		i := strings.IndexByte(t, '\n')
		if i < 0 {
			continue
		}
		seen = true
		if i == 0 || t[i-1] != '\r' {
			crlf = false
		}
	}
	if seen && crlf {
		return "\r\n"
	}
	return "\n"
}
