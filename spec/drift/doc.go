// Package drift finds where open OpenSpec changes drifted from the main
// specs they were written against, and merges them forward.
//
// The base of a delta spec is the main spec as it was where the delta was
// authored: in jj, the parent of the earliest revision in ::@ that added
// the delta file; in git, the first parent of the earliest commit of
// HEAD's history that added it. Renames are followed back (jj's and
// git's rename detection): a change folder renamed after it was written
// keeps the base of the file it was renamed from. In jj, a revision
// rebased since it was written keeps the parent it had when its delta
// was first written (jj's evolution log, jj evolog): the rebase's new
// parent, spec edits included, is not taken for the base. A delta history does
// not hold yet has the working copy's parent (jj) or HEAD (git) as base;
// a `base:` commit ID in the change's .openspec.yaml wins; a directory
// without history has no base, and nothing is guessed then. History is
// read in a fixed number of VCS calls whatever the number of
// requirements: one for every delta's base (git: two, the second naming
// renames; jj: two, the second its evolution log; as many again per
// rename followed back), one (git cat-file
// --batch, through jj's git store for jj) for every spec at its base, and
// one per stale spec to name the revision that moved it.
//
// Check reports four kinds of findings (stale, overlap, missing,
// already-applied); MergeRequirement is the three-way merge rebase uses:
// scenario by scenario (matched by name), then line by line within the
// body and each scenario, conflicts written as git-style markers with the
// base, which the conflict package parses and resolves.
package drift
