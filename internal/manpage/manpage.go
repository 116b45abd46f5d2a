// Package manpage renders the man pages of the three binaries from their
// command definitions, for man/ (`make man`) and for the drift test.
//
// Rendering needs urfave/cli's ToMan and the markdown renderer behind it,
// so only this package and its generator link them: the shipped binaries
// are built with the urfave_cli_no_docs tag (the Makefile's TAGS) and carry
// no renderer to initialise at every start.
package manpage

import (
	"fmt"

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
		page, err := app.ToManWithSection(1)
		if err != nil {
			return nil, fmt.Errorf("render the man page of %s: %w", s.Name, err)
		}
		pages[s.Name+".1"] = page
	}
	return pages, nil
}
