package spec

import "github.com/bmatcuk/doublestar/v4"

// TaskPaths returns the file paths and globs a task's text names (its
// backticked paths, and bare tokens with a '/' or a file extension), as a
// group's file area is derived: "Add `src/export.ts`" names src/export.ts,
// "Document it in docs/" names docs/**.
func TaskPaths(text string) []string { return pathsIn(text) }

// PathNamed reports whether file (a repository path, slash-separated) is
// what pattern, one of TaskPaths, names: the path itself, a file under it
// when it is a directory, or a file the glob matches.
func PathNamed(pattern, file string) bool {
	if !isGlob(pattern) {
		return isUnder(file, pattern)
	}
	return doublestar.MatchUnvalidated(pattern, file)
}
