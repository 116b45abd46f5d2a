package openspec

import (
	"errors"
	"strings"
	"testing"
)

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// A last line without a newline is written by flush, and a failure to
// write it is reported, not dropped.
func TestLineFilterFlushReportsWriteError(t *testing.T) {
	boom := errors.New("disk full")
	f := &lineFilter{out: failWriter{boom}}
	if _, err := f.Write([]byte("partial line without newline")); err != nil {
		t.Fatalf("Write of a partial line: %v (nothing should be written yet)", err)
	}
	if err := f.flush(); !errors.Is(err, boom) {
		t.Fatalf("flush: %v, want %v", err, boom)
	}
	if len(f.partial) != 0 {
		t.Errorf("partial kept after flush: %q", f.partial)
	}
}

func TestLineFilterFlushWritesLastLine(t *testing.T) {
	var b strings.Builder
	f := &lineFilter{out: &b}
	if _, err := f.Write([]byte("one\ntwo")); err != nil {
		t.Fatal(err)
	}
	if err := f.flush(); err != nil {
		t.Fatal(err)
	}
	if b.String() != "one\ntwo" {
		t.Errorf("filtered output %q, want %q", b.String(), "one\ntwo")
	}
}
