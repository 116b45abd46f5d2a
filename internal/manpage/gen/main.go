// Command gen writes the man pages into the directory given as its argument
// (make man).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/specstack/specstack/internal/manpage"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen DIR")
		os.Exit(2)
	}
	pages, err := manpage.Pages()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, page := range pages {
		if err := os.WriteFile(filepath.Join(os.Args[1], name), []byte(page), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
