// Package author is jj-openspec's propose, new and ff: a worker writes a
// change's artifacts in a workspace of its own; the draft is collected
// onto a proposal revision, health-checked and published on its
// proposal bookmark. Each run is a ledger document under author/.
package author
