package testenv

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteExecutableWhileForking writes and at once runs programs from
// many goroutines, as parallel test scripts do with their jj wrapper; a
// write descriptor inherited by another goroutine's fork would make a run
// fail with "text file busy".
func TestWriteExecutableWhileForking(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				name := filepath.Join(dir, fmt.Sprintf("prog-%d-%d", g, i))
				if err := writeExecutable(name, []byte("#!/bin/sh\nexit 0\n")); err != nil {
					errs <- err
					return
				}
				if err := exec.Command(name).Run(); err != nil {
					errs <- fmt.Errorf("run %s: %w", name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
