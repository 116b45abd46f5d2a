package cmd_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFileLines bounds a non-test Go file: a file past it holds more than
// one thing and is split where its parts meet.
const maxFileLines = 600

func TestNoFileOverMaxLines(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules", "build":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(data, []byte("\n")); n > maxFileLines {
			t.Errorf("%s has %d lines, over %d: split it where its parts meet", path, n, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoOsapply: internal/osapply, one package holding seven workflows
// around one shared Env, was split into one package per workflow under
// internal/workflow/; it does not come back.
func TestNoOsapply(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "internal", "osapply")); err == nil {
		t.Error("internal/osapply exists: a workflow goes in its own package under internal/workflow/ (apply, pipeline, author, explore, relay)")
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
}
