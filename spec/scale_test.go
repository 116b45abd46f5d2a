package spec

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// growth runs f at n and at 8n (after a warm-up) and returns how many
// times more allocations and allocated bytes the larger run made. Linear
// work gives about 8; work quadratic in n gives about 64. Counting
// allocations, not time, keeps the verdict independent of a busy machine.
func growth(t *testing.T, n int, f func(n int)) (allocs, bytes float64) {
	t.Helper()
	measure := func(n int) (uint64, uint64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f(n)
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
	}
	f(n)
	smallA, smallB := measure(n)
	bigA, bigB := measure(8 * n)
	return float64(bigA) / float64(smallA), float64(bigB) / float64(smallB)
}

// linear fails the test when 8 times the input costs more than 16 times
// the allocations or bytes (room for n log n and map growth, far from 64).
func linear(t *testing.T, what string, allocs, bytes float64) {
	t.Helper()
	t.Logf("%s: 8x the input made %.1fx the allocations and %.1fx the bytes", what, allocs, bytes)
	if allocs > 16 || bytes > 16 {
		t.Errorf("%s grows faster than linearly: 8x the input made %.1fx the allocations and %.1fx the bytes (want at most 16x)", what, allocs, bytes)
	}
}

// TestMergeScalesLinearly: looking up a requirement (and its near misses:
// same name but for case or spacing) must not fold every name of the spec
// again, nor removing one copy the order of all.
func TestMergeScalesLinearly(t *testing.T) {
	a, b := growth(t, 250, func(n int) {
		m, err := Merge("cap", "big", bigDelta(n), benchSpec(n), "/r/openspec/specs/cap/spec.md", true)
		if err != nil {
			t.Fatal(err)
		}
		if m.Counts.Added != n || m.Counts.Removed != n/10 || m.Counts.Renamed != n/10 {
			t.Fatalf("n=%d: counts %+v", n, m.Counts)
		}
	})
	linear(t, "Merge", a, b)
}

// TestUnifiedDiffScalesLinearly: the diff never fills an n×m table, for
// one large replaced region or for many small edits.
func TestUnifiedDiffScalesLinearly(t *testing.T) {
	text := func(n int, prefix string, every int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if every > 0 && i%every == 0 {
				fmt.Fprintf(&b, "%s line %d\n", prefix, i)
			} else {
				fmt.Fprintf(&b, "line %d\n", i)
			}
		}
		return b.String()
	}
	for _, tt := range []struct {
		name       string
		oldEvery   int
		newEvery   int
		oldP, newP string
	}{
		{"replaced block", 1, 1, "old", "new"},
		{"every third line", 3, 3, "old", "new"},
		{"lines added", 0, 2, "", "added"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := growth(t, 500, func(n int) {
				old, new := text(n, tt.oldP, tt.oldEvery), text(n, tt.newP, tt.newEvery)
				if UnifiedDiff("x", old, new, true) == "" {
					t.Fatal("empty diff")
				}
			})
			linear(t, "UnifiedDiff", a, b)
		})
	}
}

// TestArchivePlanScalesLinearly: the whole archive (validation, merge,
// the rebuilt spec's validation, the diff) grows linearly.
func TestArchivePlanScalesLinearly(t *testing.T) {
	a, b := growth(t, 250, func(n int) {
		r := bigArchive(t, n)
		p, err := r.PlanArchive("big", ArchiveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Diff() == "" {
			t.Fatal("empty diff")
		}
	})
	linear(t, "archive", a, b)
}
