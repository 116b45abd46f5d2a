package openspeccli

import (
	"fmt"
	"os"
	"strings"

	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
)

// folderNameProblem is OpenSpec 1.13.2's folderStyleNameProblem: why value
// cannot name a folder (label names what it is), or "".
func folderNameProblem(value, label string) string {
	switch {
	case value == "":
		return label + " must not be empty"
	case value == "." || value == "..":
		return fmt.Sprintf("%s must not be '%s'", label, value)
	case strings.ContainsAny(value, `\/`):
		return label + " must not contain path separators"
	}
	return ""
}

// changeLookupProblem is OpenSpec's validateChangeLookupName (status,
// instructions): why name cannot be looked up as a change, or "".
func changeLookupProblem(name string) string {
	switch {
	case name == "." || name == "..":
		return "Change name cannot be a relative path segment"
	case strings.ContainsAny(name, `\/`):
		return "Change name cannot contain path separators"
	case strings.Contains(name, "\x00"):
		return "Change name cannot contain null characters"
	case strings.HasPrefix(name, "."):
		return "Change name cannot start with a dot"
	case name == "archive":
		return "'archive' is reserved for archived changes"
	}
	return ""
}

// availableChanges is OpenSpec's getAvailableChanges: the directories
// under openspec/changes/ but archive and hidden ones, sorted by byte
// order (Node's readdir is libuv's scandir, sorted).
func availableChanges(r spec.Root) ([]string, error) {
	names, err := r.ChangeNames()
	if err != nil {
		return nil, err
	}
	out := names[:0:0]
	for _, n := range names {
		if !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return out, nil
}

// isChangeDir reports whether openspec/changes/name is a directory.
func isChangeDir(r spec.Root, name string) bool {
	fi, err := os.Stat(r.ChangeDir(name))
	return err == nil && fi.IsDir()
}

// lookupChange is OpenSpec's validateChangeExists for status: a *Blocked
// (code change_error) naming what is wrong with name, or nil.
func lookupChange(r spec.Root, name string) error {
	if p := changeLookupProblem(name); p != "" {
		return &specwrite.Blocked{Code: "change_error", Message: fmt.Sprintf("Invalid change name '%s': %s", name, p)}
	}
	if isChangeDir(r, name) {
		return nil
	}
	avail, err := availableChanges(r)
	if err != nil {
		return err
	}
	if len(avail) == 0 {
		return &specwrite.Blocked{Code: "change_error", Message: fmt.Sprintf("Change '%s' not found. No changes exist. Create one with: openspec new change <name>", name)}
	}
	return &specwrite.Blocked{Code: "change_error", Message: fmt.Sprintf("Change '%s' not found. Available changes:\n  %s", name, strings.Join(avail, "\n  "))}
}

// lookupArchiveChange is archive's check of its CHANGE argument in
// OpenSpec's words: an invalid name, or one that is no active change.
func lookupArchiveChange(r spec.Root, name string) error {
	if p := folderNameProblem(name, "Change name"); p != "" {
		return &specwrite.Blocked{Code: "archive_change_name_invalid", Message: p}
	}
	if fi, err := os.Lstat(r.ChangeDir(name)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return &specwrite.Blocked{Code: "archive_change_symlink", Message: fmt.Sprintf("Change '%s' is a symbolic link. Replace it with a real directory before archiving.", name)}
	}
	if name != "archive" && isChangeDir(r, name) {
		if nested := r.NestedChanges(name); nested != nil {
			// A folder that wraps changes: archiving it would bury them.
			return &specwrite.Blocked{Code: "archive_change_is_namespace_folder", Message: fmt.Sprintf("Cannot archive '%s': %s", name, spec.DescribeNested(name, nested)),
				Fix: fmt.Sprintf("Rename openspec/changes/%s/ to a flat change directory, then archive it.", nested[0])}
		}
		return nil
	}
	names, err := r.ChangeNames()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return &specwrite.Blocked{Code: "archive_change_not_found", Message: fmt.Sprintf("Change '%s' not found. No active changes exist in this root.", name)}
	}
	return &specwrite.Blocked{Code: "archive_change_not_found", Message: fmt.Sprintf("Change '%s' not found. Available changes: %s", name, strings.Join(names, ", "))}
}
