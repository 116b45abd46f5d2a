package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/specstack/specstack/internal/xec"
)

// Added is one commit reachable from HEAD that added files under a
// directory: its SHA, its parents and the paths it added.
type Added struct {
	SHA     string
	Parents []string
	Paths   []string
}

// HasHead reports whether HEAD names a commit (false in a repository
// with no commits yet).
func (r *Repo) HasHead(ctx context.Context) (bool, error) {
	_, err := r.Resolve(ctx, "HEAD")
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrNoCommit) {
		return false, nil
	}
	return false, err
}

// AddedUnder returns, newest first, the commits of HEAD's history that
// added files under the work-tree directory dir, with those paths, in
// one git call. Renames are not followed: a file moved in counts as added.
func (r *Repo) AddedUnder(ctx context.Context, dir string) ([]Added, error) {
	out, err := r.gitRead(ctx, "-c", "core.quotePath=false", "log", "--no-renames", "--diff-filter=A", "--name-only",
		"--format=%x01%H %P", "HEAD", "--", dir)
	if err != nil {
		return nil, fmt.Errorf("list commits adding files under %s in %s: %w", dir, r.Dir, err)
	}
	var res []Added
	for _, chunk := range strings.Split(string(out), "\x01") {
		ls := strings.Split(strings.TrimSpace(chunk), "\n")
		if len(ls) == 0 || ls[0] == "" {
			continue
		}
		f := strings.Fields(ls[0])
		a := Added{SHA: f[0], Parents: f[1:]}
		for _, p := range ls[1:] {
			if p = strings.TrimSpace(p); p != "" {
				a.Paths = append(a.Paths, p)
			}
		}
		res = append(res, a)
	}
	return res, nil
}

// Toucher is a commit that changed some of the paths asked about.
type Toucher struct {
	SHA, Subject string
	Paths        []string
}

// Touching returns, newest first, the commits of HEAD's history that
// changed any of the paths ps, with the ones of ps each changed, in one
// git call.
func (r *Repo) Touching(ctx context.Context, ps []string) ([]Toucher, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	args := append([]string{"-c", "core.quotePath=false", "log", "--no-renames", "--name-only", "--format=%x01%H%x00%s", "HEAD", "--"}, ps...)
	out, err := r.gitRead(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("list commits changing %s in %s: %w", strings.Join(ps, ", "), r.Dir, err)
	}
	var res []Toucher
	for _, chunk := range strings.Split(string(out), "\x01") {
		ls := strings.Split(strings.TrimSpace(chunk), "\n")
		if len(ls) == 0 || ls[0] == "" {
			continue
		}
		sha, subject, _ := strings.Cut(ls[0], "\x00")
		t := Toucher{SHA: sha, Subject: subject}
		for _, p := range ls[1:] {
			if p = strings.TrimSpace(p); p != "" {
				t.Paths = append(t.Paths, p)
			}
		}
		res = append(res, t)
	}
	return res, nil
}

// Blob is a file read at a revision.
type Blob struct {
	Content []byte
	Exists  bool   // a blob was found
	Type    string // the object's type ("blob", "tree", "commit"); "" when missing
}

// ReadFiles reads each "REV:PATH" object name, in process (or, for
// revisions beyond Resolve's own, in one git cat-file call); a name that
// does not exist reads as a Blob with Exists false.
func (r *Repo) ReadFiles(ctx context.Context, names []string) ([]Blob, error) {
	if len(names) == 0 {
		return nil, nil
	}
	for _, n := range names {
		if strings.ContainsAny(n, "\n") {
			return nil, fmt.Errorf("read %q: object names cannot hold a line break", n)
		}
	}
	if g, err := r.open(); err == nil {
		blobs, ok, err := readBlobs(ctx, g, names)
		if ok {
			if err != nil {
				return nil, fmt.Errorf("read %d files in %s: %w", len(names), r.Dir, err)
			}
			return blobs, nil
		}
	}
	var in bytes.Buffer
	for _, n := range names {
		in.WriteString(n + "\n")
	}
	env := append([]string{"GIT_OPTIONAL_LOCKS=0"}, r.Env...)
	out, err := xec.Output(ctx, xec.Cmd{Name: r.bin(), Args: []string{"cat-file", "--batch"}, Dir: r.Dir, Env: env, Stdin: &in, Timeout: ReadTimeout})
	if err != nil {
		return nil, fmt.Errorf("read %d files in %s: %w", len(names), r.Dir, err)
	}
	br := bufio.NewReader(bytes.NewReader(out))
	res := make([]Blob, len(names))
	for i := range names {
		head, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read %q in %s: git cat-file stopped early", names[i], r.Dir)
		}
		f := strings.Fields(head)
		if len(f) == 3 && f[1] == "blob" {
			size, err := strconv.Atoi(f[2])
			if err != nil {
				return nil, fmt.Errorf("read %q: bad size %q", names[i], f[2])
			}
			buf := make([]byte, size+1)
			if _, err := io.ReadFull(br, buf); err != nil {
				return nil, fmt.Errorf("read %q in %s: %w", names[i], r.Dir, err)
			}
			res[i] = Blob{Content: buf[:size], Exists: true, Type: "blob"}
			continue
		}
		if len(f) == 3 {
			res[i].Type = f[1]
			// Not a blob (a tree where the file belongs): skip its body.
			size, _ := strconv.Atoi(f[2])
			if _, err := io.CopyN(io.Discard, br, int64(size+1)); err != nil {
				return nil, fmt.Errorf("read %q in %s: %w", names[i], r.Dir, err)
			}
		}
	}
	return res, nil
}

// Unchanged reports whether every path in the work tree holds HEAD's
// bytes (no staged or unstaged edits).
func (r *Repo) Unchanged(ctx context.Context, paths []string) (bool, error) {
	args := append([]string{"diff", "--quiet", "HEAD", "--"}, paths...)
	_, err := r.gitRead(ctx, args...)
	if err == nil {
		return true, nil
	}
	if xec.ExitCode(err) == 1 {
		return false, nil
	}
	return false, fmt.Errorf("compare %s with HEAD in %s: %w", strings.Join(paths, ", "), r.Dir, err)
}

// RenamesIn returns, for each of the commits that renamed files, the
// paths it renamed mapped to their sources (git's rename detection
// against the first parent, over the whole tree), in one git call. A
// rename across directories is seen only so: AddedUnder, limited to one
// directory, sees its target as added.
func (r *Repo) RenamesIn(ctx context.Context, commits []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	if len(commits) == 0 {
		return out, nil
	}
	args := append([]string{"-c", "core.quotePath=false", "log", "--no-walk=unsorted", "--find-renames", "--diff-filter=R", "--name-status",
		"--format=%x01%H"}, commits...)
	raw, err := r.gitRead(ctx, append(args, "--")...)
	if err != nil {
		return nil, fmt.Errorf("list the renames of %s in %s: %w", strings.Join(commits, ", "), r.Dir, err)
	}
	for _, chunk := range strings.Split(string(raw), "\x01") {
		ls := strings.Split(strings.TrimSpace(chunk), "\n")
		if len(ls) == 0 || ls[0] == "" {
			continue
		}
		sha := strings.TrimSpace(ls[0])
		for _, l := range ls[1:] {
			f := strings.Split(l, "\t")
			if len(f) != 3 || !strings.HasPrefix(f[0], "R") {
				continue
			}
			if out[sha] == nil {
				out[sha] = map[string]string{}
			}
			out[sha][f[2]] = f[1]
		}
	}
	return out, nil
}
