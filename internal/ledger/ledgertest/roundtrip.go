// Package ledgertest checks ledgers kept as golden files: ledgers that
// real runs of an earlier release wrote still read, and are written back
// byte for byte.
package ledgertest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/ledger"
)

// RoundTrip reads every ledger matching glob (at least one must) as a
// Doc[H, E], fails the test for each event kind reports unknown and for
// each ledger whose re-encoding differs from its bytes, and returns the
// kinds of the events it read.
func RoundTrip[H, E any](t *testing.T, glob string, kind func(E) (name string, known bool)) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden ledgers match %s: %v", glob, err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ledger.Read[H, E](f)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range d.Events {
			name, known := kind(e)
			if !known {
				t.Errorf("%s: event %d: kind %q decoded as unknown", f, i+1, name)
			}
			seen[name] = true
		}
		out := filepath.Join(t.TempDir(), filepath.Base(f))
		if err := d.Write(out); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("re-encoded %s differs:\n%s", f, firstDiff(string(want), string(got)))
		}
	}
	return seen
}

// firstDiff names the first line where b differs from a.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(bl), len(al))
}
