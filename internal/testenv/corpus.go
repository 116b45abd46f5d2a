package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// ExtractCorpus writes the OpenSpec repository of a corpus file
// (testdata/openspec/*.txtar) into dir, applying the "crlf: PATH..." and
// "bom: PATH..." directives of its comment.
func ExtractCorpus(t testing.TB, file, dir string) {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	crlf, bom := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		for prefix, set := range map[string]map[string]bool{"crlf:": crlf, "bom:": bom} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				for _, p := range strings.Fields(rest) {
					set[p] = true
				}
			}
		}
	}
	for _, f := range ar.Files {
		data := f.Data
		if crlf[f.Name] {
			data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
		}
		if bom[f.Name] {
			data = append([]byte("\ufeff"), data...)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
