package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// kaisenFixtures copies the worker scripts of testdata/kaisen into the
// current directory, so scripts can run them as $WORK/<name>.sh.
func kaisenFixtures() {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "kaisen")
	entries, err := os.ReadDir(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kaisen-fixtures:", err)
		os.Exit(1)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err == nil {
			err = os.WriteFile(e.Name(), data, 0o755)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "kaisen-fixtures:", err)
			os.Exit(1)
		}
	}
	os.Exit(0)
}
