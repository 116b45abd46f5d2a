// Package conflict reads, resolves and writes conflict markers without a
// person, and reconciles the ticks of two edits of one tasks.md.
//
// # Reading
//
// Parse reads every marker format a jj or git user meets:
//
//   - jj's "diff" style (the default, and what jjx pins on every call):
//     "<<<<<<< conflict 1 of 1", "%%%%%%% diff from: …" with
//     "\\\\\\\        to: …" and -/+/space lines, "+++++++ …" snapshots,
//     ">>>>>>> conflict 1 of 1 ends";
//   - jj's "snapshot" style: "+++++++" sides and "-------" bases;
//   - jj's "git" style and git's own: "<<<<<<<", an optional "|||||||"
//     base (diff3, zdiff3), "=======", ">>>>>>>";
//
// with any number of sides, markers longer than seven characters (jj
// makes them four longer than the longest marker-like line of the file,
// so the longest opening markers that form a conflict are the real ones,
// except inside the base of a git diff3 hunk, where git's recursive merge
// of criss-cross histories nests the conflict of its virtual base), CRLF
// line ends, and jj's form for sides without a final newline. Each
// Hunk has its sides and bases as text, the labels jj wrote (change id,
// commit id, description, note) and its line range.
//
// Parse never fails and never panics: a binary file (a NUL byte), invalid
// UTF-8, an unterminated or malformed conflict, and a marker outside any
// conflict are left as text and listed in File.Problems; files with
// anything but stray markers are never rewritten. Render(Parse(x)) == x
// for every x, conflicted or not (fuzzed: FuzzParse).
//
// # Resolving
//
// ResolveFile applies a Strategy to every hunk: ours/theirs (two sides),
// side=N, base (when all bases agree), union (every side's lines in order,
// lines common to all once; fuzzed: every side survives as a
// subsequence), and tasks. A hunk a strategy cannot prove safe keeps its
// markers and is reported with the reason. Chunks is a
// line-level three-way merge for callers holding three versions;
// Materialize writes a hunk in any style with markers jj reads back.
//
// MergeTasks merges two edits of one tasks.md (task lines in OpenSpec's
// checkbox grammar, read with tasksmd.ParseTaskLine, matched by id when they
// have one, else by text): a task is done if either side ticked it and
// nobody changed its text; a task whose text both sides changed, or that
// one side changed or deleted while the other ticked it, stays a conflict.
//
// ResolveInRevision does this in any jj revision: it has jj run this
// binary as a merge tool defined for one `jj resolve --tool` call (the
// hidden merge-tool command, RunMergeTool), so jj rewrites the revision
// itself and records what remains as conflicts; conflicts of more than
// two sides, which jj gives no merge tool, are edited in place in the
// working copy.
//
// # Performance
//
// go test ./conflict -run '^$' -bench . -benchmem -cpu 1, on the shared
// 2-core development VM (AMD, load average 5-9 from other builds, so the
// ranges are wide):
//
//	BenchmarkParseClean50MB         50 MB, no conflict        1.2-2.7 GB/s    2 allocs
//	BenchmarkParse50MB10000Hunks    50 MB, 10,000 hunks       520-850 MB/s
//	BenchmarkMergeTasks10000        10,000 tasks, all ticked  4-10 ms
//	BenchmarkMergeTasks10000Moved   same, one task added      5-7 ms
//
// Targets: marker scanning at 200 MB/s or more on one core, tasks
// reconciliation of 10,000 tasks under 20 ms. Scanning finds candidate
// opening markers with a substring search and walks lines with
// IndexByte; the tasks merge walks the aligned head and tail of the
// three versions line by line, parsing only lines that differ, and diffs
// (internal/linediff) only what lies between.
//
// # Fuzzing
//
// make test runs each target for FUZZTIME (50,000 inputs); for a longer run:
//
//	go test ./conflict -run '^$' -fuzz '^FuzzParse$' -fuzztime 10m
//	go test ./conflict -run '^$' -fuzz '^FuzzUnion$' -fuzztime 10m
//	go test ./conflict -run '^$' -fuzz '^FuzzMergeTasks$' -fuzztime 10m
//
// # Test inputs
//
// testdata/*.conflict are real conflicts written by jj (each style, two
// and three sides, marker-like content, no final newline, CRLF, tasks.md)
// and by git merge (merge, diff3, zdiff3). Regenerate them with
//
//	go test ./conflict -run TestGenerateInputs -regenerate
//
// and the goldens (what was read and every strategy's result) with
// go test ./conflict -run TestGolden -update.
package conflict
