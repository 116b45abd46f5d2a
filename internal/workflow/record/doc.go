// Package record holds what the workflows' own records share: run and
// workspace ids, the change-name rule that keeps a name one folder name,
// and the listing of a record folder in the ledger.
package record
