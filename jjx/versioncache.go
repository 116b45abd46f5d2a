package jjx

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"
)

// The version of a jj binary is asked once per binary, not once per
// process: `jj --version` is a whole jj start (about 10 ms here) that
// every command paid before its first real call. The answer is kept in
// the user's cache directory under a key made of the binary's resolved
// path, size, modification time and inode, so an upgrade in place (a new
// file, or the same file rewritten) is asked again. The cache is a
// convenience: an entry that cannot be read, parsed or written is
// ignored and jj is asked.

// VersionCacheEnv, when set, is the directory of cached jj versions
// ("off" disables the cache); else $XDG_CACHE_HOME/specstack/jj-version
// (os.UserCacheDir).
const VersionCacheEnv = "SPECSTACK_JJ_VERSION_CACHE"

// versionCacheFile is the cache entry of the jj binary at bin, "" when
// there is no cache (none configured, or bin cannot be stat'ed).
func versionCacheFile(bin string) string {
	dir := os.Getenv(VersionCacheEnv)
	if dir == "off" {
		return ""
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "specstack", "jj-version")
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(real)
	if err != nil {
		return ""
	}
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%d", real, fi.Size(), fi.ModTime().UnixNano(), inode(fi))
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, hex.EncodeToString(sum[:16]))
}

// cachedVersion is the version recorded in file, if any.
func cachedVersion(file string) (Version, bool) {
	if file == "" {
		return Version{}, false
	}
	data, err := os.ReadFile(file)
	if err != nil || len(data) > 256 {
		return Version{}, false
	}
	v, err := ParseVersion(strings.TrimSpace(string(data)))
	if err != nil {
		return Version{}, false
	}
	return v, true
}

// storeVersion records v in file, atomically; failures are ignored.
func storeVersion(file string, v Version) {
	if file == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return
	}
	_ = renameio.WriteFile(file, []byte(v.String()+"\n"), 0o644)
}
