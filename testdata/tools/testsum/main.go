// Command testsum reads `go test -json` on stdin and prints a readable
// report: one line per package, one line per end-to-end script, the full
// output of every failed test, and a closing "N passed, N failed, N skipped"
// line. It exits 1 when anything failed or the build broke.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	outputs := map[string]*strings.Builder{} // package/test -> output
	var passed, failed, skipped int
	bad := false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Println(string(line)) // build errors and other plain lines
			if strings.Contains(string(line), "FAIL") || strings.HasPrefix(string(line), "#") {
				bad = true
			}
			continue
		}
		key := e.Package + "/" + e.Test
		switch e.Action {
		case "output":
			b := outputs[key]
			if b == nil {
				b = &strings.Builder{}
				outputs[key] = b
			}
			b.WriteString(e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" { // package result
				if e.Action == "fail" {
					bad = true
					if b := outputs[key]; b != nil {
						fmt.Print(b.String())
					}
				}
				if e.Action == "skip" {
					fmt.Printf("%-4s %s (no tests)\n", "-", e.Package)
				} else {
					fmt.Printf("%-4s %s (%.1fs)\n", strings.ToUpper(e.Action), e.Package, e.Elapsed)
				}
				continue
			}
			if !strings.Contains(e.Test, "/") || e.Action != "pass" {
				switch e.Action {
				case "pass":
					passed++
				case "fail":
					failed++
				case "skip":
					skipped++
				}
			}
			if strings.HasPrefix(e.Test, "TestScripts/") || e.Action == "skip" {
				fmt.Printf("    %-4s %s %s\n", strings.ToUpper(e.Action), shortPkg(e.Package), e.Test)
			}
			if e.Action == "fail" {
				fmt.Printf("--- FAIL: %s %s\n%s", e.Package, e.Test, outputs[key])
			}
			delete(outputs, key)
		}
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if bad || failed > 0 {
		os.Exit(1)
	}
}

func shortPkg(p string) string {
	return strings.TrimPrefix(p, "github.com/specstack/specstack/")
}
