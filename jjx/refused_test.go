package jjx

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseRefused(t *testing.T) {
	stderr := `Warning: Refused to snapshot some files:
  big.bin: 1.9MiB (2000000 bytes); the maximum size allowed is 1.0MiB (1048576 bytes)
  dir/a b: c.bin: 3.0MiB (3145728 bytes); the maximum size allowed is 1.0MiB (1048576 bytes)
  odd.bin: too strange
Hint: This is to prevent large files from being added by accident. To fix this:
  * Add the file(s) to ` + "`.gitignore`" + `
  * Run ` + "`jj config set --repo snapshot.max-new-file-size 3145728`" + `
    This will increase the maximum file size allowed for new files, in this repository only.
`
	got := parseRefused(stderr)
	want := []string{
		"big.bin (2000000 bytes; snapshot.max-new-file-size is 1048576 bytes)",
		"dir/a b: c.bin (3145728 bytes; snapshot.max-new-file-size is 1048576 bytes)",
		"odd.bin: too strange",
	}
	if len(got) != len(want) {
		t.Fatalf("parseRefused found %d files, want %d: %+v", len(got), len(want), got)
	}
	for i, f := range got {
		if f.String() != want[i] {
			t.Errorf("file %d = %q, want %q", i, f.String(), want[i])
		}
	}
	if got[2].Path != "odd.bin" {
		t.Errorf("unparsed line's path = %q, want odd.bin", got[2].Path)
	}
	if fs := parseRefused("Warning: something else\n  x: y\n"); fs != nil {
		t.Errorf("parseRefused of another warning = %+v, want none", fs)
	}
	err := fmt.Errorf("collect: %w", &RefusedError{Root: "/w", Files: got[:1]})
	var re *RefusedError
	if !errors.Is(err, ErrRefused) || !errors.As(err, &re) || re.Root != "/w" {
		t.Errorf("a wrapped *RefusedError is not found as ErrRefused: %v", err)
	}
}
