// Package linediff is the one line diff of specstack, built on
// github.com/sergi/go-diff: the three-way merges of package conflict
// (Chunks, Union, the tasks merge, conflict markers' diff sections) and
// of spec/drift (MergeRequirement, through conflict.Chunks) match lines
// with Match, and the archive dry-run prints Unified.
//
// # Matching
//
// Match(a, b) returns pairs (A, B) with a[A] == b[B], increasing in both:
// the lines a diff keeps. Lines are any comparable value (text lines, or
// the tasks merge's task keys). It trims the common head and tail, gives
// each distinct line of the rest one rune, leaves out the lines only one
// side has (they cannot match), and runs go-diff's Myers diff on the
// runes (DiffMainRunes, as its own line mode DiffLinesToRunes does) with
// no deadline, so a result never depends on the machine's speed. Two
// shapings follow:
//
//   - Each run of deleted or inserted lines between kept ones slides
//     down as far as it goes (while the line after it equals its
//     first), as git and GNU diff print them: a removed requirement
//     reads as its header, text and blank line, whichever of two equal
//     blank lines go-diff kept.
//   - A region of more than maxCells (old × new lines; Myers costs up to
//     (n+m)·D steps) is first cut at the lines that occur once in each
//     side, in the longest order both agree on (patience diff's anchors),
//     and the pieces are diffed in turn; a piece that is still too large
//     and has no such line stays unmatched. Likewise a text of more
//     distinct lines than there are runes (1,112,064) keeps only its
//     common head and tail.
//
// Within the bounds the matching is a longest common subsequence:
// checked against a quadratic table on random texts of a few repeated
// lines (TestMatchIsLongest) and fuzzed (FuzzUnified). Past them it is
// valid but may be shorter: a correct diff, never a wrong one.
//
// # Unified diffs
//
// Unified(from, to, old, new) prints the edit script of Match on the
// lines of old and new (each keeping its "\n") as a unified diff:
// "--- from" and "+++ to", hunks of Context (3) unchanged lines around
// changes, hunks less than 2·Context lines apart joined, in a changed
// region the removed lines before the added ones, and "\ No newline at
// end of file" after a last line without one. Applying the diff to old
// gives new, for every old and new (fuzzed: FuzzUnified, with a patcher
// written from the format, not from this code).
//
// # Performance
//
// go test ./internal/linediff -run '^$' -bench . -benchmem on the shared
// 2-core development VM, for a spec of 30 requirements (336 lines) with
// a reworded requirement, a removed scenario and two added requirements:
//
//	BenchmarkUnified/336-lines     about 0.13 ms
//	BenchmarkMatch/336-lines       about 0.1 ms
//
// Against the engines it replaced (patience anchors with an exact LCS
// between them in conflict; go-internal/diff's text read back and refined
// with an LCS in spec), measured side by side before they were deleted:
// see the commit that introduced this package.
package linediff
