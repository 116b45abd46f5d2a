// Package pipeline is jj-openspec's apply of several changes: the
// changes chosen (names, selectors, --after), arranged by their
// dependencies into stacks, each member applied by package apply in a
// workspace of its own, its pull request stacked on the one below, the
// stacks linked through gh-specstack. The pipeline's record
// (pipeline.toml) is what resume, status and abort read.
package pipeline
