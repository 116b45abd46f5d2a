// Package spec reads and writes OpenSpec documents: changes, specs, delta
// specs and their archive, tasks.md (parse, tick, progress; the line
// grammar is in package spec/tasksmd), and the separability of a change's
// task groups. Its grammar follows OpenSpec 1.13 (the @fission-ai/openspec
// npm package) so that its answers are the CLI's.
package spec
