// Command testsum reads `go test -json` on stdin and prints a readable
// report: one line per package with its time, one line per end-to-end
// script, the full output of every failed test, a heartbeat naming the
// packages that have run for more than a minute, and, last, one
// "N passed, N failed, N skipped" line. It exits 1 when anything failed or
// the build broke.
//
// A plain line "=== fuzz" on stdin switches to fuzzing: the `go test -json
// -fuzz` streams after it count as fuzz targets, reported one line each and
// folded into the closing line ("…; 11 fuzz targets passed").
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// FuzzMarker is the line that starts the fuzzing part of the stream.
const FuzzMarker = "=== fuzz"

type summary struct {
	mu                      sync.Mutex
	outputs                 map[string]*strings.Builder // package/test -> output
	running                 map[string]time.Time        // package -> start
	passed, failed, skipped int
	fuzzPassed, fuzzFailed  int
	fuzzing, bad            bool
}

func main() {
	s := &summary{outputs: map[string]*strings.Builder{}, running: map[string]time.Time{}}
	stop := make(chan struct{})
	go s.heartbeat(time.Minute, stop)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		s.line(sc.Bytes())
	}
	close(stop)
	s.mu.Lock()
	defer s.mu.Unlock()
	line := fmt.Sprintf("%d passed, %d failed, %d skipped", s.passed, s.failed, s.skipped)
	if s.fuzzPassed+s.fuzzFailed > 0 {
		line += fmt.Sprintf("; %d fuzz targets passed, %d failed", s.fuzzPassed, s.fuzzFailed)
	}
	fmt.Println(line)
	if s.bad || s.failed > 0 || s.fuzzFailed > 0 {
		os.Exit(1)
	}
}

// heartbeat prints, every period, the packages running for longer than it.
func (s *summary) heartbeat(period time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			s.mu.Lock()
			var long []string
			for pkg, start := range s.running {
				if d := now.Sub(start); d >= period {
					long = append(long, fmt.Sprintf("%s (%s)", shortPkg(pkg), d.Truncate(time.Second)))
				}
			}
			sort.Strings(long)
			if len(long) > 0 {
				fmt.Printf("     still running: %s\n", strings.Join(long, ", "))
			}
			s.mu.Unlock()
		}
	}
}

func (s *summary) line(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var e event
	if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
		text := string(line)
		if text == FuzzMarker {
			s.fuzzing = true
			return
		}
		fmt.Println(text) // build errors and other plain lines
		if strings.Contains(text, "FAIL") || strings.HasPrefix(text, "#") {
			s.bad = true
		}
		return
	}
	key := e.Package + "/" + e.Test
	switch e.Action {
	case "start":
		s.running[e.Package] = time.Now()
	case "output":
		b := s.outputs[key]
		if b == nil {
			b = &strings.Builder{}
			s.outputs[key] = b
		}
		b.WriteString(e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			s.packageResult(e, key)
			return
		}
		if s.fuzzing {
			s.fuzzResult(e, key)
			return
		}
		if !strings.Contains(e.Test, "/") || e.Action != "pass" {
			switch e.Action {
			case "pass":
				s.passed++
			case "fail":
				s.failed++
			case "skip":
				s.skipped++
			}
		}
		if strings.HasPrefix(e.Test, "TestScripts/") || e.Action == "skip" {
			fmt.Printf("    %-4s %s %s\n", strings.ToUpper(e.Action), shortPkg(e.Package), e.Test)
		}
		if e.Action == "fail" {
			fmt.Printf("--- FAIL: %s %s\n%s", e.Package, e.Test, s.outputs[key])
		}
		delete(s.outputs, key)
	}
}

func (s *summary) packageResult(e event, key string) {
	delete(s.running, e.Package)
	if e.Action == "fail" {
		s.bad = true
		if b := s.outputs[key]; b != nil {
			fmt.Print(b.String())
		}
	}
	if s.fuzzing {
		return // the fuzz target's own line says it
	}
	if e.Action == "skip" {
		fmt.Printf("%-4s %s (no tests)\n", "-", e.Package)
	} else {
		fmt.Printf("%-4s %s (%.1fs)\n", strings.ToUpper(e.Action), e.Package, e.Elapsed)
	}
}

func (s *summary) fuzzResult(e event, key string) {
	if strings.Contains(e.Test, "/") {
		return // a seed input's subtest
	}
	switch e.Action {
	case "pass":
		s.fuzzPassed++
	case "fail":
		s.fuzzFailed++
		fmt.Printf("--- FAIL: %s %s\n%s", e.Package, e.Test, s.outputs[key])
	}
	fmt.Printf("FUZZ %-4s %s %s (%.1fs)\n", strings.ToUpper(e.Action), shortPkg(e.Package), e.Test, e.Elapsed)
	delete(s.outputs, key)
}

func shortPkg(p string) string {
	return strings.TrimPrefix(p, "github.com/specstack/specstack/")
}
