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
	"strings"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/kaisencli"
	"github.com/specstack/specstack/internal/openspeccli"
	"github.com/specstack/specstack/internal/stackcli"
)

// Specs are the binaries, in a fixed order.
func Specs() []cliapp.Spec {
	return []cliapp.Spec{openspeccli.Spec(), kaisencli.Spec(), stackcli.Spec()}
}

// Pages returns file name → man page for every binary (section 1) and
// every guide (section 7, see Guides). A binary's page is
// urfave/cli's rendering of the command definitions, with the DESCRIPTION
// rendered here (its commands in no-fill blocks) and the sections the
// definitions do not hold appended.
func Pages() (map[string]string, error) {
	pages := map[string]string{}
	for _, s := range Specs() {
		app := cliapp.New(s)
		app.Version = "" // pages must not depend on the build
		page, err := app.ToManWithSection(1)
		if err != nil {
			return nil, fmt.Errorf("render the man page of %s: %w", s.Name, err)
		}
		page, err = compose(s, page)
		if err != nil {
			return nil, err
		}
		pages[s.Name+".1"] = page
	}
	guides, err := Guides()
	if err != nil {
		return nil, err
	}
	for name, page := range guides {
		pages[name] = page
	}
	return pages, nil
}

// extra holds each binary's own sections, before the shared ones.
var extra = map[string]string{
	"jj-kaisen":    kaisenPage,
	"jj-openspec":  openspecPage,
	"gh-specstack": stackPage,
}

// compose replaces urfave's DESCRIPTION (filled text, in which an indented
// command wraps) and appends the sections of extra and the shared ones.
func compose(s cliapp.Spec, page string) (string, error) {
	const descr, globals = "\n.SH DESCRIPTION\n", "\n.SH GLOBAL OPTIONS\n"
	i, j := strings.Index(page, descr), strings.Index(page, globals)
	own, ok := extra[s.Name]
	if i < 0 || j < i || !ok {
		return "", fmt.Errorf("render the man page of %s: no DESCRIPTION and GLOBAL OPTIONS in urfave/cli's page, or no sections for it", s.Name)
	}
	var b strings.Builder
	// tbl renders the EXIT STATUS table; man(1) runs it on this mark.
	b.WriteString("'\\\" t\n")
	b.WriteString(page[:i+1])
	b.WriteString(render("# DESCRIPTION\n" + strings.TrimSpace(s.Description) + "\n\n" +
		"Usage:\n    " + s.Name + " [GLOBAL OPTIONS] command [COMMAND OPTIONS] [ARGUMENTS...]"))
	b.WriteString(strings.TrimRight(page[j+1:], "\n") + "\n")
	// man-pages(7)'s order: the binary's own sections, CONFIGURATION,
	// EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO.
	body, examples, _ := strings.Cut(own, "# EXAMPLES\n")
	body, files, _ := strings.Cut(body, "# FILES\n")
	b.WriteString(render(body))
	b.WriteString(render(configuration()))
	b.WriteString(exitStatus(exitNotes[s.Name]))
	b.WriteString(render(environment[s.Name]))
	b.WriteString(render("# FILES\n" + files))
	b.WriteString(render("# EXAMPLES\n" + examples))
	b.WriteString(render(shellCompletion(s.Name)))
	b.WriteString(render(agents(s.Name)))
	b.WriteString(render(seeAlso(s.Name)))
	return b.String(), nil
}
