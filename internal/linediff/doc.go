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
// go test ./internal/linediff -run '^$' -bench . -benchmem -cpu 1 on the
// shared 2-core development VM (load average 5-15 from other builds, so
// the ranges are wide), for specs of 2, 30 and 300 requirements with a
// reworded requirement, a removed scenario and two added requirements:
//
//	BenchmarkMatch/28-lines        20-50 µs      63 allocs
//	BenchmarkMatch/336-lines       55-130 µs     53 allocs
//	BenchmarkMatch/3306-lines      0.8-1.8 ms    72 allocs
//	BenchmarkUnified/336-lines     0.1-0.25 ms   79 allocs
//
// Against the engines it replaced, timed side by side before they were
// deleted (BenchmarkVersusLinediff in conflict and spec at the commit
// that added this package), new time over old:
//
//	three-way merge's two diffs    28 lines 1.5-4, 336 lines 1.1-1.7, 3306 lines 0.8-1.4
//	archive's unified diff         28 lines 0.55-0.8, 336 lines 0.25-0.55, 3306 lines 0.3-0.6
//
// Tens of microseconds either way, against about 34 ms for one jj
// process. go-diff's package initialisation (six regular expressions)
// costs every start 0.07 ms and 169 allocations (cmd/startup_test.go).
//
// # Fuzzing
//
// make test runs FuzzUnified for FUZZTIME; for a longer run:
//
//	go test ./internal/linediff -run '^$' -fuzz '^FuzzUnified$' -fuzztime 10m
package linediff
