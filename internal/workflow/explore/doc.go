// Package explore is jj-openspec's explore --findings: a worker writes one
// findings document (and nothing else) in a workspace of its own; the
// document is copied into the project atomically. Each run is a record
// under explore/, which cleanup and abort read to remove what a killed
// run left.
package explore
