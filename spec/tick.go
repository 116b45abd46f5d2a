package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/internal/journal"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/spec/tasksmd"
)

// ErrNoTasks reports a change without a task file.
var ErrNoTasks = errors.New("no tasks file")

// Tasks reads the task file(s) of a change. The change must exist and
// have one.
func (r Root) Tasks(change string) (TasksFile, string, error) {
	if err := r.CheckChange(change); err != nil {
		return TasksFile{}, "", err
	}
	var content string
	found := false
	for _, f := range r.TaskFiles(change) {
		b, err := r.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return TasksFile{}, "", err
		}
		found = true
		content += string(b)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			content += "\n"
		}
	}
	if !found {
		return TasksFile{}, "", fmt.Errorf("change %q: %w: write %s with lines like \"- [ ] 1.1 Do it\" under \"## 1. Group\" headings", change, ErrNoTasks, filepath.Join(r.ChangeDir(change), "tasks.md"))
	}
	return ParseTasks(content), content, nil
}

// Tick sets the tasks with the given ids checked (or unchecked), changing
// only their box markers, and writes each task file atomically (to the file
// a symbolic link inside Bound points to; a link leading out of Bound is a
// *LinkError, and nothing is read). Nothing is written when any id is
// unknown or ambiguous.
func (r Root) Tick(change string, ids []string, checked bool) ([]string, error) {
	if err := r.CheckChange(change); err != nil {
		return nil, err
	}
	real := map[string]string{}
	for _, f := range r.TaskFiles(change) {
		rp, err := r.Resolve(f)
		if err != nil {
			return nil, err
		}
		real[f] = rp
	}
	if _, _, err := r.Tasks(change); err != nil {
		return nil, err
	}
	byFile := map[string][]string{}
	var order []string
	for _, id := range ids {
		f, err := r.taskFileWith(change, id)
		if err != nil {
			return nil, err
		}
		if _, ok := byFile[f]; !ok {
			order = append(order, f)
		}
		byFile[f] = append(byFile[f], id)
	}
	type edit struct {
		path, content string
		mode          fs.FileMode
	}
	var edits []edit
	for _, f := range order {
		b, err := regfile.Read(f)
		if err != nil {
			return nil, err
		}
		out, err := SetChecked(string(b), byFile[f], checked)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		mode := fs.FileMode(0o644)
		if fi, err := os.Stat(f); err == nil {
			mode = fi.Mode().Perm()
		}
		if out != string(b) {
			edits = append(edits, edit{f, out, mode})
		}
	}
	var written []string
	for _, e := range edits {
		// A tick killed inside its atomic write left a hidden temporary
		// beside the file, which jj would snapshot into the change.
		if err := journal.RemoveTemps(real[e.path]); err != nil {
			return written, err
		}
		if err := renameio.WriteFile(real[e.path], []byte(e.content), e.mode); err != nil {
			return written, fmt.Errorf("write %q: %w", e.path, err)
		}
		written = append(written, e.path)
	}
	return written, nil
}

func readFileIfExists(p string) (string, error) {
	b, err := regfile.Read(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// taskFileWith returns the task file of a change that holds task id, or
// its first task file.
func (r Root) taskFileWith(change, id string) (string, error) {
	files := r.TaskFiles(change)
	for _, f := range files {
		b, err := readFileIfExists(f)
		if err != nil {
			return "", err
		}
		for _, l := range strings.Split(b, "\n") {
			if t, ok := tasksmd.ParseTaskLine(l); ok && t.ID == id {
				return f, nil
			}
		}
	}
	return files[0], nil
}
