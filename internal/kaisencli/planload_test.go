package kaisencli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/kaisencli"
	"github.com/specstack/specstack/internal/testenv"
)

// TestPlanNotRegular gives every verb that reads a plan a FIFO (or a
// directory) as its PLAN: each refuses it promptly, unopened, with exit 6
// naming the path. A deadline turns a regression into a failure, not a
// hang.
func TestPlanNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "plan.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "plan-dir.md")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		args []string
	}{
		{fifo, []string{"plan", fifo}},
		{fifo, []string{"brief", fifo, "1"}},
		{fifo, []string{"run", "--worker", "true", fifo}},
		{sub, []string{"plan", sub}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:1], " ")+" "+filepath.Base(tt.path), func(t *testing.T) {
			_, stderr, code := testenv.RunSoon(t, 20*time.Second, kaisencli.Spec(), append([]string{"jj-kaisen", "--repo", dir}, tt.args...)...)
			if code != exitcode.Invalid {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitcode.Invalid, stderr)
			}
			if !strings.Contains(stderr, tt.path) || !strings.Contains(stderr, "not a regular file") {
				t.Errorf("stderr does not name %s as not a regular file: %s", tt.path, stderr)
			}
		})
	}
}
