package manpage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPagesUpToDate fails when man/ differs from what the commands
// generate; run `make man` to regenerate.
func TestManPagesUpToDate(t *testing.T) {
	pages, err := Pages()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 {
		t.Fatalf("got %d pages, want 3", len(pages))
	}
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join("..", "..", "man", name))
		if err != nil {
			t.Errorf("man/%s: %v (run `make man`)", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("man/%s is out of date: run `make man`", name)
		}
		for _, section := range []string{".TH ", "EXIT CODES", "doctor", "completion"} {
			if !strings.Contains(want, section) {
				t.Errorf("%s lacks %q", name, section)
			}
		}
	}
}
