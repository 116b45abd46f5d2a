// Package relay is jj-openspec's relay: propose a change (package author),
// park it at the human gate, then go (implement it with package apply) or
// no-go. Each relay is a record under relay/ in the ledger.
package relay
