package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestArchiveConcurrent starts two real archives at once on one
// repository, of the same change and of two changes that touch the same
// 200 specs. The ledger lock lets one run; the other fails at once with
// exit 3 naming the holder's pid (or, when it starts after the first has
// finished, sees the result). No requirement may be lost either way.
func TestArchiveConcurrent(t *testing.T) {
	isolate(t)
	const specs = 200
	tests := []struct {
		name    string
		changes [2]string
	}{
		{"same change", [2]string{"alpha", "alpha"}},
		{"two changes", [2]string{"alpha", "beta"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			locked := 0
			for trial := range 3 {
				distinct := uniq(tt.changes[:])
				dir := bigRepo(t, specs, distinct...)
				res := archiveTwice(dir, tt.changes)
				for i, r := range res {
					other := res[1-i]
					switch {
					case r.code == 0:
					case r.code == 3:
						locked++
						if want := fmt.Sprintf("locked by pid %d ", other.pid); !strings.Contains(r.stderr, want) {
							t.Errorf("trial %d: exit 3 without naming the holder (%q):\n%s", trial, want, r.stderr)
						}
						if tt.changes[0] != tt.changes[1] {
							// the loser archives once the winner is done
							if again := runIn(dir, "jj-openspec", "archive", tt.changes[i], "--yes"); again.code != 0 {
								t.Fatalf("trial %d: archive %s again: exit %d\n%s", trial, tt.changes[i], again.code, again.stderr)
							}
						}
					case r.code == 2 && tt.changes[0] == tt.changes[1] && other.code == 0:
						// started after the winner had archived it
					default:
						t.Fatalf("trial %d: archive %s: exit %d\n%s", trial, tt.changes[i], r.code, r.stderr)
					}
				}
				if res[0].code != 0 && res[1].code != 0 {
					t.Fatalf("trial %d: neither archive succeeded: %d %d\n%s\n%s", trial, res[0].code, res[1].code, res[0].stderr, res[1].stderr)
				}
				checkArchived(t, dir, specs, distinct)
			}
			if locked == 0 {
				t.Fatalf("the two archives never overlapped in 3 trials: the lock was not exercised")
			}
		})
	}
}

// archiveTwice starts both archives before waiting for either.
func archiveTwice(dir string, changes [2]string) [2]result {
	var res [2]result
	var wg sync.WaitGroup
	var ready sync.WaitGroup
	ready.Add(1)
	for i, c := range changes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd, out, errb := start(dir, "jj-openspec", "archive", c, "--yes")
			ready.Wait()
			err := cmd.Start()
			if err == nil {
				err = cmd.Wait()
			}
			res[i] = finish(cmd, out, errb, err)
		}()
	}
	ready.Done()
	wg.Wait()
	return res
}

// checkArchived asserts that every change was archived once and that every
// spec holds each change's requirement exactly once.
func checkArchived(t *testing.T, dir string, specs int, changes []string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "openspec", "changes", "archive"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(changes) {
		t.Errorf("archive holds %d folders, want %d", len(entries), len(changes))
	}
	for _, c := range changes {
		if _, err := os.Stat(filepath.Join(dir, "openspec", "changes", c)); err == nil {
			t.Errorf("change %s was not moved to the archive", c)
		}
	}
	var missing []string
	for i := range specs {
		b, err := os.ReadFile(filepath.Join(dir, "openspec", "specs", fmt.Sprintf("cap-%03d", i), "spec.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			re := regexp.MustCompile(fmt.Sprintf(`(?m)^### Requirement: %s %d$`, c, i))
			if n := len(re.FindAllIndex(b, -1)); n != 1 {
				missing = append(missing, fmt.Sprintf("cap-%03d has %q %d times", i, c, n))
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d requirement(s) lost or doubled, e.g. %s", len(missing), strings.Join(missing[:min(3, len(missing))], "; "))
	}
}

func uniq(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
