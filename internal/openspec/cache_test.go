package openspec_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/internal/openspec"
)

// The parity tests' results of the real OpenSpec CLI are cached on disk,
// under $SPECSTACK_CACHE/parity (by default $XDG_CACHE_HOME/specstack or
// ~/.cache/specstack; never in the repository), so a run that changed
// neither the CLI nor the corpus starts no Node process at all.
//
// An entry is found by a key that hashes everything a run of the CLI can
// see: the CLI's identity (every file of the npm tree that holds it, the
// Node version, the runner: batch or process), the exact argv, the date
// and time zone, the allow-list of dropped stderr lines, and the whole
// tree of the directory it runs in (each path, kind, mode, modification
// time to the nanosecond, content, link target; a symlink's own mode and
// time are left out). It gives back stdout,
// stderr, the exit code and, when the run changed the tree, the tree it
// left (modification times included), which is put back in place. Paths
// of the directory in the output are stored as placeholders. PARITY_CACHE=off
// bypasses the cache (nothing read, nothing written).

// cacheFormat changes when the key or the entry changes shape.
const cacheFormat = "specstack parity cache v1"

// cacheOff reports whether PARITY_CACHE=off.
func cacheOff() bool { return os.Getenv("PARITY_CACHE") == "off" }

// cacheDir is where entries live.
func cacheDir() (string, error) {
	root := os.Getenv("SPECSTACK_CACHE")
	if root == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("find the cache directory (set SPECSTACK_CACHE or PARITY_CACHE=off): %w", err)
		}
		root = filepath.Join(base, "specstack")
	}
	return filepath.Join(root, "parity"), nil
}

// node is one entry of a directory tree.
type node struct {
	Path  string      `json:"path"` // slash-separated, "." for the root
	Kind  string      `json:"kind"` // "dir", "file" or "symlink"
	Mode  fs.FileMode `json:"mode"` // permission bits
	MTime int64       `json:"mtime"`
	Data  []byte      `json:"data,omitempty"` // content, or link target
}

// snapshot reads the tree under dir, sorted by path.
func snapshot(dir string) ([]node, error) {
	var out []node
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		n := node{Path: filepath.ToSlash(rel), Mode: info.Mode().Perm(), MTime: info.ModTime().UnixNano()}
		switch {
		case info.IsDir():
			n.Kind = "dir"
		case info.Mode()&fs.ModeSymlink != 0:
			// Following a link sees its target's times; its own are left
			// out (and not restored).
			n.Kind, n.Mode, n.MTime = "symlink", 0, 0
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			n.Data = []byte(target)
		case info.Mode().IsRegular():
			n.Kind = "file"
			if n.Data, err = os.ReadFile(p); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: neither file, directory nor symlink (%s): not cacheable", p, info.Mode().Type())
		}
		out = append(out, n)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// restore makes the tree under dir exactly tree: what is not in tree is
// removed, the rest written, then modes and modification times set,
// directories last and deepest first.
func restore(dir string, tree []node) error {
	want := map[string]bool{}
	for _, n := range tree {
		want[n.Path] = true
	}
	have, err := snapshot(dir)
	if err != nil {
		return err
	}
	for i := len(have) - 1; i >= 0; i-- {
		if !want[have[i].Path] {
			if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(have[i].Path))); err != nil {
				return err
			}
		}
	}
	for _, n := range tree {
		p := filepath.Join(dir, filepath.FromSlash(n.Path))
		switch n.Kind {
		case "dir":
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case "file":
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			if err := os.WriteFile(p, n.Data, 0o600); err != nil {
				return err
			}
		case "symlink":
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			if err := os.Symlink(string(n.Data), p); err != nil {
				return err
			}
		}
	}
	for i := len(tree) - 1; i >= 0; i-- {
		n := tree[i]
		p := filepath.Join(dir, filepath.FromSlash(n.Path))
		if n.Kind == "symlink" {
			continue // its own time is not part of the key
		}
		if err := os.Chmod(p, n.Mode); err != nil {
			return err
		}
		at := time.Unix(0, n.MTime)
		if err := os.Chtimes(p, at, at); err != nil {
			return err
		}
	}
	return nil
}

// cliIdentity hashes what makes the CLI what it is: every file (path, mode,
// content) of the node_modules tree that holds it, `node --version`, and
// the runner: batch (with its scripts) or process.
func cliIdentity(batch bool) (string, error) {
	base, err := cliFiles()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", base)
	if batch {
		for _, f := range []string{"batch.mjs", "batch-hooks.mjs"} {
			data, err := os.ReadFile(filepath.Join("testdata", f))
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "runner batch %s %x\n", f, sha256.Sum256(data))
		}
	} else {
		fmt.Fprintf(h, "runner process\n")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cliFiles hashes the CLI's files and Node's version, once.
var cliFiles = sync.OnceValues(func() (string, error) {
	bin, err := openspec.Path()
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", err
	}
	// .../node_modules/@fission-ai/openspec/bin/openspec.js
	modules := real
	for filepath.Base(modules) != "node_modules" {
		next := filepath.Dir(modules)
		if next == modules {
			return "", fmt.Errorf("%s is not inside a node_modules tree", real)
		}
		modules = next
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nbin %s\n", cacheFormat, strings.TrimPrefix(real, modules))
	err = filepath.WalkDir(modules, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(modules, p)
		fmt.Fprintf(h, "%q %v ", rel, info.Mode())
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			fmt.Fprintf(h, "-> %q\n", target)
			return err
		}
		data, err := os.ReadFile(p)
		fmt.Fprintf(h, "%d %x\n", len(data), sha256.Sum256(data))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hash the OpenSpec CLI under %s: %w", modules, err)
	}
	nodeVersion, err := exec.Command("node", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("node --version: %w", err)
	}
	fmt.Fprintf(h, "node %s", nodeVersion)
	return hex.EncodeToString(h.Sum(nil)), nil
})

// cacheKey is the key of one run: the CLI's identity, the day (the CLI
// writes dates, in the time zone tz), the exact argv, the allow-list that
// filters stderr and the tree the run starts from.
func cacheKey(cli, day, tz string, args []string, tree []node) string {
	h := sha256.New()
	argv, _ := json.Marshal(args)
	filters, _ := json.Marshal(openspec.Harmless)
	fmt.Fprintf(h, "%s\ncli %s\nday %s\ntz %q\nargv %s\nfilters %s\n", cacheFormat, cli, day, tz, argv, filters)
	for _, n := range tree {
		fmt.Fprintf(h, "%q %s %v %d %d %x\n", n.Path, n.Kind, n.Mode, n.MTime, len(n.Data), sha256.Sum256(n.Data))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cacheEntry is what a run left.
type cacheEntry struct {
	Stdout []byte `json:"stdout"`
	Stderr []byte `json:"stderr"`
	Code   int    `json:"code"`
	// Tree is the tree the run left when it changed it, else nil.
	Tree []node `json:"tree"`
}

// Placeholders for the run's directory in a stored output.
const (
	rootPlaceholder     = "\x00ROOT\x00"
	realRootPlaceholder = "\x00REALROOT\x00"
)

// cachedRun runs the CLI through run (a batch runner or not) in dir with
// args, or gives back what
// an earlier run with the same key left. An output that still names a
// temporary path after the directory's paths are replaced (a private
// HOME, say) is not stored.
func cachedRun(dir string, args []string, batch bool, run func() (string, string, int, error)) (string, string, int, error) {
	cli, err := cliIdentity(batch)
	if err != nil {
		return "", "", -1, err
	}
	root, err := cacheDir()
	if err != nil {
		return "", "", -1, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", "", -1, err
	}
	before, err := snapshot(dir)
	if err != nil {
		return "", "", -1, err
	}
	now := time.Now()
	key := cacheKey(cli, now.Format(time.DateOnly), os.Getenv("TZ"), args, before)
	file := filepath.Join(root, key[:2], key+".json")
	if data, err := os.ReadFile(file); err == nil {
		var e cacheEntry
		if err := json.Unmarshal(data, &e); err == nil {
			if e.Tree != nil {
				if err := restore(dir, e.Tree); err != nil {
					return "", "", -1, fmt.Errorf("restore the tree of cache entry %s into %s: %w", file, dir, err)
				}
			}
			return unplace(e.Stdout, dir, real), unplace(e.Stderr, dir, real), e.Code, nil
		}
	}
	stdout, stderr, code, err := run()
	if err != nil {
		return stdout, stderr, code, err
	}
	// A run that crossed midnight may have written either day.
	if time.Now().Format(time.DateOnly) != now.Format(time.DateOnly) {
		return stdout, stderr, code, nil
	}
	e := cacheEntry{Stdout: place(stdout, dir, real), Stderr: place(stderr, dir, real), Code: code}
	if tmp := os.TempDir(); bytes.Contains(e.Stdout, []byte(tmp)) || bytes.Contains(e.Stderr, []byte(tmp)) {
		return stdout, stderr, code, nil
	}
	after, err := snapshot(dir)
	if err != nil {
		return "", "", -1, err
	}
	if cacheKey(cli, "", "", nil, after) != cacheKey(cli, "", "", nil, before) {
		e.Tree = after
	}
	if err := store(file, e); err != nil {
		return "", "", -1, err
	}
	return stdout, stderr, code, nil
}

func place(s, dir, real string) []byte {
	s = strings.ReplaceAll(s, real, realRootPlaceholder)
	return []byte(strings.ReplaceAll(s, dir, rootPlaceholder))
}

func unplace(b []byte, dir, real string) string {
	s := strings.ReplaceAll(string(b), rootPlaceholder, dir)
	return strings.ReplaceAll(s, realRootPlaceholder, real)
}

// store writes an entry atomically: a reader sees all of it or none.
func store(file string, e cacheEntry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("create the parity cache (PARITY_CACHE=off bypasses it): %w", err)
	}
	tmp := file + "." + rand.Text() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write parity cache entry: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write parity cache entry: %w", err)
	}
	return nil
}

// pruneCache removes the entries written before yesterday: their keys hold
// their day, so no run can find them again.
func pruneCache() error {
	root, err := cacheDir()
	if err != nil {
		return err
	}
	cutoff := time.Now().Add(-48 * time.Hour)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if info, err := d.Info(); err == nil && info.ModTime().Before(cutoff) {
			return os.Remove(p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
