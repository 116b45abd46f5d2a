// Command jj-openspec; see "jj-openspec --help" and man/jj-openspec.1.
package main

import (
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/openspeccli"
)

func main() { cliapp.Main(openspeccli.Spec()) }
