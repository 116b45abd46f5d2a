// Command gh-specstack; see "gh-specstack --help" and man/gh-specstack.1.
package main

import (
	"github.com/specstack/specstack/internal/cliapp"
	_ "github.com/specstack/specstack/internal/hugeheap" // first: see its doc
	"github.com/specstack/specstack/internal/stackcli"
)

func main() { cliapp.Main(stackcli.Spec()) }
