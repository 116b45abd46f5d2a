// Package specwrite holds the jj-openspec workflows that write a
// project's openspec/ tree under its lock and intent journal: init,
// tasks check/uncheck, archive (with its drift refusal), rebase and sync,
// and Recover, the roll-forward of a journal a killed one left.
//
// One layer takes the ledger lock: each workflow here takes the
// project's jj-openspec lock itself, for its whole read-modify-write
// (a dry run takes none); the command that calls it parses, calls and
// renders. Errors come back with their exit codes attached (Classify).
package specwrite
