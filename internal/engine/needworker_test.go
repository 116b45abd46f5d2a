package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

func TestNeedWorker(t *testing.T) {
	tests := []struct {
		command string
		refused bool
	}{
		{command: "", refused: true},
		{command: "  \t\n", refused: true},
		{command: "sh -c 'claude -p'", refused: false},
		{command: "true", refused: false},
	}
	for _, tt := range tests {
		err := NeedWorker(tt.command, "")
		if (err != nil) != tt.refused {
			t.Errorf("NeedWorker(%q) = %v, want refused %t", tt.command, err, tt.refused)
			continue
		}
		if err == nil {
			continue
		}
		if got := exitcode.Of(err); got != exitcode.Usage {
			t.Errorf("NeedWorker(%q): exit %d, want %d (usage)", tt.command, got, exitcode.Usage)
		}
		if msg := err.Error(); !strings.Contains(msg, "--worker CMD") || !strings.Contains(msg, "[worker] command") {
			t.Errorf("NeedWorker(%q) = %q: it names neither the flag nor the setting", tt.command, msg)
		}
	}
}

// TestNeedWorkerSpelledOnce: the refusal is NeedWorker's alone; every
// verb that starts a worker calls it instead of spelling it again.
func TestNeedWorkerSpelledOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	const refusal = "no worker command: pass --worker"
	var checked int
	var sites []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		if strings.Contains(string(data), refusal) {
			sites = append(sites, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d files; is the walk rooted at the module?", checked)
	}
	if want := filepath.Join(root, "internal", "engine", "worker.go"); len(sites) != 1 || sites[0] != want {
		t.Errorf("the refusal %q is spelled in %v; want only in %s (call engine.NeedWorker)", refusal, sites, want)
	}
}
