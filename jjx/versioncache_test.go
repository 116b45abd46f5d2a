package jjx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

// TestVersionCachedAcrossProcesses: the real jj, behind a script that
// logs its arguments, is asked its version once per binary; a cache
// entry left by another process is used; a binary rewritten in place is
// asked again; a corrupt entry is asked again; "off" always asks.
func TestVersionCachedAcrossProcesses(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	real, err := xec.LookPath("jj")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	bin := filepath.Join(dir, "jj")
	shim := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(jjx.VersionCacheEnv, filepath.Join(dir, "cache"))
	calls := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "--version")
	}
	check := func(want int) {
		t.Helper()
		v, err := jjx.CheckVersion(t.Context(), bin)
		if err != nil {
			t.Fatal(err)
		}
		if v.Major == 0 && v.Minor == 0 {
			t.Fatalf("version %+v", v)
		}
		if got := calls(); got != want {
			t.Fatalf("jj --version ran %d times, want %d", got, want)
		}
	}
	check(1)
	check(1) // what a second process finds
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	check(2) // the binary changed
	check(2)
	if err := os.WriteFile(jjx.VersionCacheFile(bin), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	check(3)
	t.Setenv(jjx.VersionCacheEnv, "off")
	check(4)
	check(5)
}
