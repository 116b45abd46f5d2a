package manpage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

// TestEveryVerbHelpEndsWithExample: every verb and subverb of the three
// binaries has an example, its --help ends with it and with the man
// pages to read, every example starts with its own verb, and every guide
// a binary names is a guide there is.
func TestEveryVerbHelpEndsWithExample(t *testing.T) {
	for i, s := range Specs() {
		if _, err := os.Stat(filepath.Join("guides", s.Guide+".md")); err != nil {
			t.Errorf("%s names the guide %q: %v", s.Name, s.Guide, err)
		}
		for key, ex := range s.Examples {
			if !strings.HasPrefix(ex+" ", key+" ") && !strings.HasPrefix(ex+" ", strings.Fields(key)[0]+" ") {
				t.Errorf("%s: the example of %q does not run it: %q", s.Name, key, ex)
			}
		}
		app := cliapp.New(s)
		var walk func(parent string, cs []*cli.Command)
		walk = func(parent string, cs []*cli.Command) {
			for _, c := range cs {
				if c.Name == "help" || c.Hidden {
					continue
				}
				path := strings.TrimSpace(parent + " " + c.Name)
				walk(path, c.Subcommands)
				if s.Name == "jj-openspec" && path == "cli" {
					continue // its arguments, --help too, go to the OpenSpec CLI
				}
				var out, errb bytes.Buffer
				args := append([]string{s.Name}, strings.Fields(path)...)
				// A fresh spec each run: urfave/cli keeps state in the
				// commands it ran.
				if code := cliapp.Run(Specs()[i], append(args, "--help"), &out, &errb); code != 0 {
					t.Errorf("%s %s --help: exit %d: %s", s.Name, path, code, errb.String())
					continue
				}
				help := strings.TrimRight(out.String(), "\n")
				seeAlso := "\nSEE ALSO:\n   " + s.Name + "(1) and " + s.Guide + "(7)"
				if !strings.HasSuffix(help, seeAlso) {
					t.Errorf("%s %s --help does not end with %q:\n%s", s.Name, path, seeAlso, help)
					continue
				}
				if !strings.Contains(help, "\nEXAMPLE:\n   "+s.Name+" "+strings.Fields(path)[0]) {
					t.Errorf("%s %s --help has no example of itself before SEE ALSO (cliapp.Spec.Examples):\n%s", s.Name, path, help)
				}
			}
		}
		walk("", app.Commands)
	}
}

// TestOneDefaultPerFlag: no flag of the three binaries prints urfave's
// "(default: …)" after a default its usage states ("(default: [worker]
// max-cost, else no limit) (default: 0)"), in --help (each flag's line
// is cli.FlagStringer's) or in the man pages.
func TestOneDefaultPerFlag(t *testing.T) {
	for _, s := range Specs() {
		app := cliapp.New(s)
		for _, f := range app.Flags {
			if line := cli.FlagStringer(f); twoDefaults(line) {
				t.Errorf("%s --help: %s", s.Name, line)
			}
		}
		var walk func(path string, cs []*cli.Command)
		walk = func(path string, cs []*cli.Command) {
			for _, c := range cs {
				p := path + " " + c.Name
				for _, f := range c.Flags {
					if line := cli.FlagStringer(f); twoDefaults(line) {
						t.Errorf("%s%s --help: %s", s.Name, p, line)
					}
				}
				walk(p, c.Subcommands)
			}
		}
		walk("", app.Commands)
	}
	pages, err := Pages()
	if err != nil {
		t.Fatal(err)
	}
	for name, page := range pages {
		for _, line := range strings.Split(page, "\n") {
			if strings.HasPrefix(line, `\fB-`) && twoDefaults(line) {
				t.Errorf("%s: %s", name, line)
			}
		}
	}
}

// twoDefaults reports whether a flag's line ends in "(default: …)" after
// text that already speaks of a default.
func twoDefaults(line string) bool {
	i := strings.LastIndex(line, "(default: ")
	return i >= 0 && strings.HasSuffix(line, ")") && strings.Contains(line[:i], "default")
}
