// Command jj-kaisen; see "jj-kaisen --help" and man/jj-kaisen.1.
package main

import (
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/kaisencli"
)

func main() { cliapp.Main(kaisencli.Spec()) }
