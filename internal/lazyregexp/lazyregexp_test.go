package lazyregexp

import (
	"slices"
	"sync"
	"testing"
)

// TestCompiledOnFirstUse: outside tests New only records the pattern, so
// a binary's start-up compiles nothing; the first use compiles (and a bad
// pattern panics there, as regexp.MustCompile would have at start-up).
func TestCompiledOnFirstUse(t *testing.T) {
	saved := inTest
	inTest = false
	defer func() { inTest = saved }()

	bad := New(`(`)
	if bad.rx != nil {
		t.Fatal("compiled by New")
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic at first use")
		}
	}()
	bad.MatchString("x")
}

// TestUnderTestCompiledAtOnce keeps MustCompile's guarantee in tests: a
// bad package-level pattern fails its package's tests.
func TestUnderTestCompiledAtOnce(t *testing.T) {
	if !inTest {
		t.Fatal("a test binary is not recognised as one")
	}
	defer func() {
		if recover() == nil {
			t.Error("New of a bad pattern did not panic under test")
		}
	}()
	New(`(`)
}

func TestMethods(t *testing.T) {
	saved := inTest
	inTest = false
	defer func() { inTest = saved }()
	r := New(`(\d+)-(\d+)`)
	var wg sync.WaitGroup
	for range 8 { // first uses race to compile; go test -race checks it
		wg.Go(func() { r.MatchString("1-2") })
	}
	wg.Wait()
	if !r.Match([]byte("a 1-2")) || r.MatchString("a-b") {
		t.Error("Match/MatchString")
	}
	if got := r.FindStringSubmatch("x 12-34"); !slices.Equal(got, []string{"12-34", "12", "34"}) {
		t.Errorf("FindStringSubmatch = %q", got)
	}
	if got := r.FindAllString("1-2 3-4", -1); !slices.Equal(got, []string{"1-2", "3-4"}) {
		t.Errorf("FindAllString = %q", got)
	}
	if got := r.FindAllStringIndex("1-2 3-4", -1); len(got) != 2 || got[1][0] != 4 {
		t.Errorf("FindAllStringIndex = %v", got)
	}
	if got := r.FindAllStringSubmatch("1-2 3-4", 1); len(got) != 1 || got[0][2] != "2" {
		t.Errorf("FindAllStringSubmatch = %q", got)
	}
	if got := r.ReplaceAllString("1-2", "$2-$1"); got != "2-1" {
		t.Errorf("ReplaceAllString = %q", got)
	}
	if r.String() != `(\d+)-(\d+)` {
		t.Errorf("String = %q", r.String())
	}
}
