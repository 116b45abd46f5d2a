// Package manpage renders the man pages of the three binaries from their
// command definitions, for man/ and for the drift test.
package manpage

import (
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/kaisencli"
	"github.com/specstack/specstack/internal/openspeccli"
	"github.com/specstack/specstack/internal/stackcli"
)

// Specs are the binaries, in a fixed order.
func Specs() []cliapp.Spec {
	return []cliapp.Spec{openspeccli.Spec(), kaisencli.Spec(), stackcli.Spec()}
}

// Pages returns file name → man page (section 1) for every binary.
func Pages() (map[string]string, error) {
	pages := map[string]string{}
	for _, s := range Specs() {
		app := cliapp.New(s)
		app.Version = "" // pages must not depend on the build
		page, err := cliapp.ManPage(app)
		if err != nil {
			return nil, err
		}
		pages[s.Name+".1"] = page
	}
	return pages, nil
}
