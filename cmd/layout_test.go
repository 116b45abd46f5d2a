package cmd_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
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

// TestReviewTypesInTheEngine: findings, fixers' verdicts, rejections,
// receipts and ledger events are the engine's types, one schema for the
// three binaries; no other package declares its own (a struct with
// toml "kind" and "at" fields is a ledger event union). Three names are something else and
// allowed, each with what it is.
func TestReviewTypesInTheEngine(t *testing.T) {
	notReview := map[string]string{
		"spec.Verdict":     "the fan-out decision over a change's task groups",
		"plan.PlanFinding": "a problem in a plan's text, found before anything runs",
		"drift.Finding":    "a requirement a change's delta and main specs disagree on",
	}
	engineDir := filepath.Join("..", "internal", "engine")
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == engineDir || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				name := s.(*ast.TypeSpec).Name.Name
				if st, ok := s.(*ast.TypeSpec).Type.(*ast.StructType); ok {
					keys := map[string]bool{}
					for _, fld := range st.Fields.List {
						if fld.Tag != nil {
							key, _, _ := strings.Cut(strings.TrimPrefix(strings.Trim(fld.Tag.Value, "`"), `toml:"`), `"`)
							keys[key] = true
						}
					}
					if keys["kind"] && keys["at"] {
						t.Errorf("%s declares type %s, a ledger event (kind and at): ledger events are internal/engine's (Event and its payloads, one fold per ledger there)", path, name)
					}
				}
				review := strings.HasSuffix(name, "Finding") || strings.HasSuffix(name, "Rejection") ||
					strings.HasSuffix(name, "Receipt") || strings.HasSuffix(name, "Verdict")
				if _, ok := notReview[f.Name.Name+"."+name]; review && !ok {
					t.Errorf("%s declares type %s: findings, verdicts, rejections and receipts are internal/engine's (Finding, FixVerdict, Rejection, Receipt)", path, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTopLevelLayout: the product card fixes what the repository's root
// holds. Anything else goes under internal/, testdata/ or .ci/.
func TestTopLevelLayout(t *testing.T) {
	card := map[string]bool{
		"cmd": true, "jjx": true, "gitx": true, "spec": true, "stack": true,
		"conflict": true, "man": true, "testdata": true, "go.mod": true,
		"go.sum": true, "Makefile": true, "README.md": true,
		"internal": true, ".ci": true, ".gitignore": true,
	}
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	seen := map[string]bool{}
	for _, path := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		name, _, _ := strings.Cut(path, "/")
		if !card[name] && !seen[name] {
			seen[name] = true
			t.Errorf("%s is at the repository's root, which the product card fixes (cmd jjx gitx spec stack conflict man testdata go.mod go.sum Makefile README.md, internal/, .ci/): move it under internal/, testdata/ or .ci/", name)
		}
	}
}
