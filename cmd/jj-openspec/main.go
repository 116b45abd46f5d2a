// Command jj-openspec; see "jj-openspec --help" and man/jj-openspec.1.
package main

import (
	"github.com/specstack/specstack/internal/cliapp"
	_ "github.com/specstack/specstack/internal/hugeheap" // first: see its doc
	"github.com/specstack/specstack/internal/openspeccli"
)

func main() { cliapp.MainQuick(openspeccli.Spec, openspeccli.Quick) }
