package jjx_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/specstack/specstack/jjx"
)

// TestFindMissingNamesARealRemedy: with no jj on PATH the error says how
// to get one (the distribution's package, `make install`), never a path
// inside the source tree that an installed user does not have.
func TestFindMissingNamesARealRemedy(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := jjx.Find(t.Context())
	if !errors.Is(err, jjx.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	msg := err.Error()
	for _, want := range []string{"install jj >= " + jjx.MinVersion, "distribution's jj package", "make install"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "testdata/") {
		t.Errorf("message names a path in the source tree: %s", msg)
	}
}
