package apply

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/refname"
	"github.com/specstack/specstack/spec"
)

// maxFileName is the longest file name, in bytes, of the file systems a
// repository lives on (ext4, APFS, NTFS: 255).
const maxFileName = 255

// archiveStamp is the "YYYY-MM-DD-" an archive folder's name starts with.
const archiveStamp = len("2006-01-02-")

// CheckNames refuses (exit 6) changes that could not land under their
// names, before anything is provisioned: a feat/<slug> bookmark that is
// not a valid git branch or jj bookmark name (refname.Check), a bookmark
// another active change lands under too, and an archive folder
// (YYYY-MM-DD-NAME) longer than a file name may be. Otherwise the worker
// would run and the change be archived before the push or the archive
// failed.
func CheckNames(r spec.Root, names []string) error {
	active, err := r.ChangeNames()
	if err != nil {
		return exitcode.Wrap(exitcode.Invalid, fmt.Errorf("list the active changes: %w", err))
	}
	for _, n := range names {
		bm := BookmarkOf(n)
		if err := refname.Check(bm); err != nil {
			return exitcode.New(exitcode.Invalid, "change %q: its bookmark %q is not a valid branch name: %v (a feat/ bookmark is the change's name lower-cased, with runs of characters other than a-z, 0-9, '.', '_' and '-' made '-'); rename the change's folder under %s; nothing was provisioned", n, bm, err, r.ChangesDir())
		}
		if l := archiveStamp + len(n); l > maxFileName {
			return exitcode.New(exitcode.Invalid, "change %q: its archive folder %q would be %d bytes, over the %d a folder name may have; rename the change's folder under %s to at most %d bytes; nothing was provisioned", n, "YYYY-MM-DD-"+n, l, maxFileName, r.ChangesDir(), maxFileName-archiveStamp)
		}
		var same []string
		for _, a := range active {
			if BookmarkOf(a) == bm {
				same = append(same, a)
			}
		}
		if !slices.Contains(same, n) {
			same = append(same, n)
		}
		if len(same) > 1 {
			slices.Sort(same)
			q := make([]string, len(same))
			for i, s := range same {
				q[i] = fmt.Sprintf("%q", s)
			}
			return exitcode.New(exitcode.Invalid, "changes %s and %s share the bookmark %q: each change needs its own; rename all but one of their folders under %s; nothing was provisioned", strings.Join(q[:len(q)-1], ", "), q[len(q)-1], bm, r.ChangesDir())
		}
	}
	return nil
}

// RepoRel is p relative to env's workspace root, slash-separated;
// a path outside it is refused (exit 2).
func RepoRel(env *Env, p string) (string, error) {
	rel, err := filepath.Rel(env.Repo.Root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", exitcode.New(exitcode.Usage, "%s is not inside the jj workspace %s", p, env.Repo.Root)
	}
	return filepath.ToSlash(rel), nil
}
