package cliapp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/exitcode"
)

// SkillFile is the name of an installed guide, in DIR/<binary>/.
const SkillFile = "SKILL.md"

func skillCommand(s Spec) *cli.Command {
	return &cli.Command{
		Name:  "skill",
		Usage: "print the agent-facing guide (Markdown with name/description front matter), or --install it",
		Description: "Prints the guide an AI agent follows to use " + s.Name + ": when to use which verb,\n" +
			"the step-mode sequence with the JSON each step prints, and what to do on each exit code.\n" +
			"--install DIR writes it to DIR/" + s.Name + "/" + SkillFile + " (atomically; DIR is made when\n" +
			"missing; a symbolic link on the way that leads out of DIR is refused, exit 6).\n" +
			"--json prints {\"name\", \"description\", \"guide\"}: the front matter's name and description, and\n" +
			"the guide as skill prints it, front matter included; with --install, {\"installed\": PATH}.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "install", Usage: "write the guide to `DIR`/" + s.Name + "/" + SkillFile + " instead of printing it"},
		},
		Action: func(c *cli.Context) error {
			dir := c.String("install")
			if dir == "" {
				return Emit(c, newGuideDoc(s.Skill), func(w io.Writer) error {
					_, err := io.WriteString(w, s.Skill)
					return err
				})
			}
			path, err := InstallSkill(dir, s.Name, s.Skill)
			if err != nil {
				return err
			}
			return Emit(c, map[string]string{"installed": path}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "installed %s\n", path)
				return err
			})
		},
	}
}

// guideDoc is skill --json's document. A program reading the guide
// gets the two fields skill loaders index it by without parsing YAML,
// and the guide itself: what skill prints, byte for byte.
type guideDoc struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Guide       string `json:"guide"`
}

// newGuideDoc reads guide's front matter: "---", a "key: value" a line
// ("name", "description"; the others are skipped), "---".
func newGuideDoc(guide string) guideDoc {
	d := guideDoc{Guide: guide}
	front, ok := strings.CutPrefix(guide, "---\n")
	if ok {
		front, _, ok = strings.Cut(front, "\n---\n")
	}
	if !ok {
		return d
	}
	for _, line := range strings.Split(front, "\n") {
		switch key, value, _ := strings.Cut(line, ": "); key {
		case "name":
			d.Name = value
		case "description":
			d.Description = value
		}
	}
	return d
}

// InstallSkill writes guide to dir/binary/SKILL.md and returns the path
// written. The file is replaced atomically (a reader, or a crash, sees the
// old guide or the new one, whole). dir is made when missing; a path
// through a symbolic link leading out of dir is refused (exit 6), and so
// is anything but a regular file where SKILL.md belongs.
func InstallSkill(dir, binary, guide string) (string, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return "", exitcode.New(exitcode.Usage, "skill --install %s: not a directory: name the skills directory (for example ~/.claude/skills)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("skill --install: make %s: %w", dir, err)
	}
	rel := binary + "/" + SkillFile
	path, err := confine.Path(dir, rel)
	if err != nil {
		var esc *confine.EscapeError
		if errors.As(err, &esc) {
			return "", exitcode.New(exitcode.Invalid, "skill --install %s: %s is a symbolic link to %s, outside %s: refusing to write through it (remove the link, or install into the directory it points to)", dir, filepath.Join(dir, filepath.FromSlash(esc.Link)), esc.Target, dir)
		}
		return "", fmt.Errorf("skill --install %s: %w", dir, err)
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return "", exitcode.New(exitcode.Invalid, "skill --install %s: %s exists and is not a regular file: refusing to replace it", dir, path)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("skill --install %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("skill --install %s: make %s: %w", dir, filepath.Dir(path), err)
	}
	if err := renameio.WriteFile(path, []byte(guide), 0o644); err != nil {
		return "", fmt.Errorf("skill --install %s: write %s: %w", dir, path, err)
	}
	return filepath.Join(dir, binary, SkillFile), nil
}
