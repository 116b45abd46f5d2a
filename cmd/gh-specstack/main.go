// Command gh-specstack; see "gh-specstack --help" and man/gh-specstack.1.
package main

import (
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/stackcli"
)

func main() { cliapp.Main(stackcli.Spec()) }
