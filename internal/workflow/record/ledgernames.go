package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LedgerNames lists the records in the folder sub of the ledger
// directory dir (author, relay, explore): the names of its regular files
// <name>.toml, sorted. Anything else there (renameio's temporary files,
// a folder, a link) is no record. A folder that does not exist holds
// none.
func LedgerNames(dir, sub string) ([]string, error) {
	folder := filepath.Join(dir, sub)
	ents, err := os.ReadDir(folder)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the ledger folder %s: %w", folder, err)
	}
	var names []string
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".toml")
		if ok && name != "" && e.Type().IsRegular() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}
