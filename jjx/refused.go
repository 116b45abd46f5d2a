package jjx

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/specstack/specstack/internal/lazyregexp"
)

// MaxNewFileSizeSetting is the jj setting that bounds the files a
// snapshot records (1 MiB by default).
const MaxNewFileSizeSetting = "snapshot.max-new-file-size"

// ErrRefused reports that a snapshot left files out: jj refused to record
// them (jj 0.46: bigger than snapshot.max-new-file-size). errors.As finds
// the *RefusedError naming them.
var ErrRefused = errors.New("jj refused to snapshot files")

// RefusedFile is a file a snapshot left out. Size and Limit are 0 when
// jj's line did not say them in the known form (Line keeps it).
type RefusedFile struct {
	Path  string
	Size  int64 // bytes
	Limit int64 // bytes: snapshot.max-new-file-size
	Line  string
}

func (f RefusedFile) String() string {
	if f.Size == 0 && f.Limit == 0 {
		return strings.TrimSpace(f.Line)
	}
	return fmt.Sprintf("%s (%d bytes; %s is %d bytes)", f.Path, f.Size, MaxNewFileSizeSetting, f.Limit)
}

// RefusedError is a call on a workspace whose snapshot left files out
// (see Repo.Strict): the files are on disk but in no commit, and lost
// with the workspace's directory.
type RefusedError struct {
	Root  string // the workspace
	Files []RefusedFile
}

func (e *RefusedError) Error() string {
	names := make([]string, len(e.Files))
	for i, f := range e.Files {
		names[i] = f.String()
	}
	return fmt.Sprintf("jj refused to snapshot %s in workspace %s: they are in no commit (raise %s, or remove or ignore them)",
		strings.Join(names, ", "), e.Root, MaxNewFileSizeSetting)
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// refusedLine is one file of jj's "Refused to snapshot some files:"
// warning: "  big.bin: 1.9MiB (2000000 bytes); the maximum size allowed
// is 1.0MiB (1048576 bytes)".
var refusedLine = lazyregexp.New(`^  (.+): [^;]*\((\d+) bytes\); the maximum size allowed is [^;]*\((\d+) bytes\)\s*$`)

// parseRefused reads the files of jj's "Refused to snapshot some files:"
// warning from stderr; nil when there is none.
func parseRefused(stderr string) []RefusedFile {
	var out []RefusedFile
	in := false
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimRight(l, "\r")
		switch {
		case strings.Contains(l, "Refused to snapshot some files"):
			in = true
		case in && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   "):
			f := RefusedFile{Line: l}
			if m := refusedLine.FindStringSubmatch(l); m != nil {
				f.Path = m[1]
				f.Size, _ = strconv.ParseInt(m[2], 10, 64)
				f.Limit, _ = strconv.ParseInt(m[3], 10, 64)
			} else if p, _, ok := strings.Cut(strings.TrimSpace(l), ": "); ok {
				f.Path = p
			}
			out = append(out, f)
		default:
			in = false
		}
	}
	return out
}
