package openspeccli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "List items (changes by default). Use --specs to list specs: active changes with their task progress, or the specs",
		Description: `Lists the changes under openspec/changes/ (the archive excluded) with the
completed and total task counts OpenSpec reports, most recently modified
first (by the newest file's mtime, rounded to the millisecond as OpenSpec
rounds it). --json prints the same document as "openspec list --json":
{"changes": [{"name", "completedTasks", "totalTasks", "lastModified", "status"}],
"root": {"path", "source"}}. With --specs, lists the main specs and their
requirement counts ({"specs": [{"id", "requirementCount"}], "root": …}).
The root is the one OpenSpec 1.13.2 chooses: the nearest openspec/
holding specs/, changes/ or config.yaml. None here or above is OpenSpec's
refusal ("No OpenSpec root found from the current directory.", its JSON
status document with --json), exit 1; so is an openspec/changes that is
not a directory (OpenSpec's ENOTDIR). A spec.md that is not a regular file
(a directory, a FIFO) is skipped, as OpenSpec skips it. Names are padded
by UTF-16 code units, as OpenSpec pads them.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "specs", Usage: "list the main specs instead of the changes"},
			&cli.BoolFlag{Name: "changes", Usage: "list the changes (the default; OpenSpec's flag)"},
			&cli.StringFlag{Name: "sort", Value: "recent", Usage: "order changes by `recent` or name"},
		},
		Action: runList,
	}
}

func runList(c *cli.Context) error {
	if args, err := cliapp.Args(c); err != nil {
		return err
	} else if len(args) > 0 {
		return tooManyArgs(c, 0, len(args))
	}
	// OpenSpec's refusals come with its null shape of the list asked for.
	key := "changes"
	if c.Bool("specs") {
		key = "specs"
	}
	nullDoc := func(st []osStatus) any { return ordered{{key, []any{}}, {"root", nil}, {"status", st}} }
	// OpenSpec keeps the implicit root for a project of its old layout
	// (openspec/project.md) only.
	implicit := false
	if dir, err := cliapp.RepoDir(c); err == nil {
		_, serr := os.Stat(filepath.Join(dir, "openspec", "project.md"))
		implicit = serr == nil
	}
	r, err := openOSRoot(c, implicit)
	if errors.Is(err, errRealCLI) {
		return passThrough(c, invocation(c))
	}
	if errors.Is(err, spec.ErrNoRoot) {
		return osFailure(c, &specwrite.Blocked{Code: "no_openspec_root", Message: "No OpenSpec root found from the current directory.",
			Target: "openspec.root", Fix: "Run openspec init to create a root here."}, nullDoc)
	}
	if err != nil {
		return err
	}
	if fi, err := os.Stat(r.ChangesDir()); !c.Bool("specs") && err == nil && !fi.IsDir() {
		// What OpenSpec's readdir of openspec/changes fails with.
		return osFailure(c, &specwrite.Blocked{Code: "list_error",
			Message: fmt.Sprintf("ENOTDIR: not a directory, scandir '%s'", filepath.Join(rootOf(r).Path, "openspec", "changes"))}, nullDoc)
	}
	if c.Bool("specs") {
		specs, err := r.ListSpecs()
		if err != nil {
			return classify(err)
		}
		return cliapp.Emit(c, struct {
			Specs []spec.SpecSummary `json:"specs"`
			Root  listRoot           `json:"root"`
		}{specs, rootOf(r)}, func(w io.Writer) error { return writeSpecs(w, specs) })
	}
	// OpenSpec sorts by name for "name" and by recency for anything else.
	sortBy := c.String("sort")
	if err := warnConfig(c, r); err != nil {
		return err
	}
	changes, err := r.ListChanges(sortBy == "name")
	if err != nil {
		return classify(err)
	}
	type jsonChange struct {
		Name           string   `json:"name"`
		CompletedTasks int      `json:"completedTasks"`
		TotalTasks     int      `json:"totalTasks"`
		LastModified   string   `json:"lastModified"`
		Status         string   `json:"status"`
		Nested         []string `json:"nested,omitempty"`
	}
	type warning struct {
		Code    string   `json:"code"`
		Name    string   `json:"name"`
		Nested  []string `json:"nested"`
		Message string   `json:"message"`
	}
	out := struct {
		Changes  []jsonChange `json:"changes"`
		Warnings []warning    `json:"warnings,omitempty"`
		Root     listRoot     `json:"root"`
	}{Changes: []jsonChange{}, Root: rootOf(r)}
	for _, ch := range changes {
		out.Changes = append(out.Changes, jsonChange{ch.Name, ch.CompletedTasks, ch.TotalTasks, ch.LastModified.Format("2006-01-02T15:04:05.000Z"), ch.Status, ch.Nested})
	}
	for _, ch := range byNameOrder(changes) {
		if ch.Nested != nil {
			out.Warnings = append(out.Warnings, warning{"nested_change_directory", ch.Name, ch.Nested, spec.DescribeNested(ch.Name, ch.Nested)})
		}
	}
	return cliapp.Emit(c, out, func(w io.Writer) error { return writeChanges(w, changes) })
}

// listRoot is the "root" object of OpenSpec's list --json: the project
// root as OpenSpec resolves it (symbolic links resolved) and how it was
// found: "nearest" (the nearest directory holding openspec/) or, where
// none was found, "implicit" (the directory itself, spec.Root.Implicit);
// OpenSpec's registered stores are not read.
type listRoot struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

func rootOf(r spec.Root) listRoot {
	p, err := filepath.EvalSymlinks(r.Dir)
	if err != nil {
		p = r.Dir
	}
	src := "nearest"
	if r.Implicit {
		src = "implicit"
	}
	return listRoot{Path: p, Source: src}
}

func writeChanges(w io.Writer, changes []spec.ChangeSummary) error {
	if len(changes) == 0 {
		_, err := fmt.Fprintln(w, "No active changes found.")
		return err
	}
	width := 0
	for _, ch := range changes {
		width = max(width, jsLen(ch.Name))
	}
	var b strings.Builder
	b.WriteString("Changes:\n")
	for _, ch := range changes {
		p := spec.TaskProgress{Completed: ch.CompletedTasks, Total: ch.TotalTasks}
		status := p.String()
		if ch.Nested != nil {
			status = "not a change"
		}
		fmt.Fprintf(&b, "  %s     %-12s  %s\n", padEnd(ch.Name, width), status, ago(ch.LastModified))
	}
	for _, ch := range byNameOrder(changes) {
		if ch.Nested != nil {
			fmt.Fprintf(&b, "\nWarning: %s\n", spec.DescribeNested(ch.Name, ch.Nested))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSpecs(w io.Writer, specs []spec.SpecSummary) error {
	if len(specs) == 0 {
		_, err := fmt.Fprintln(w, "No specs found.")
		return err
	}
	width := 0
	for _, s := range specs {
		width = max(width, jsLen(s.ID))
	}
	var b strings.Builder
	b.WriteString("Specs:\n")
	for _, s := range specs {
		fmt.Fprintf(&b, "  %s     requirements %d\n", padEnd(s.ID, width), s.RequirementCount)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsLen is the length of s as JavaScript counts it (String.length): UTF-16
// code units, one for a CJK character, two for an emoji beyond the BMP.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// padEnd pads s with spaces to width as JavaScript's padEnd does (OpenSpec
// pads names so): by UTF-16 code units, not by display width.
func padEnd(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-jsLen(s)))
}

// ago is OpenSpec 1.13.2's relative time: whole minutes, hours or days
// ago, and past 30 whole days the date as Node's toLocaleDateString()
// writes it (localDate).
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d/(24*time.Hour) > 30:
		return localDate(t.Local(), os.LookupEnv)
	case d >= 24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	case d >= time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d >= time.Minute:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	}
	return "just now"
}

// localeDate is a locale's numeric date: a pattern of {y} {yy} {m} {mm}
// {d} {dd} and literal text, and its digits ("" for ASCII).
type localeDate struct{ pattern, digits string }

// localDate writes t as Node's toLocaleDateString() does in the locale
// ICU picks from the environment (getenv): the first of LC_ALL,
// LC_MESSAGES and LANG that is set, even empty; none is en-US. The
// locale's encoding is dropped; one missing from localeDates is looked up
// without its modifier, then as its language alone, and else (or empty)
// is ICU's root locale, YYYY-MM-DD. The Persian and Thai calendars of
// fa, ps, az_IR and th are not reproduced: they get the root form too.
func localDate(t time.Time, getenv func(string) (string, bool)) string {
	name := "C"
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v, ok := getenv(k); ok {
			name = v
			break
		}
	}
	if i := strings.IndexByte(name, '.'); i >= 0 { // de_DE.UTF-8@euro
		mod := ""
		if j := strings.IndexByte(name[i:], '@'); j >= 0 {
			mod = name[i+j:]
		}
		name = name[:i] + mod
	}
	ld, ok := localeDates()[name]
	if !ok {
		base, _, _ := strings.Cut(name, "@")
		if ld, ok = localeDates()[base]; !ok {
			lang, _, _ := strings.Cut(base, "_")
			if ld, ok = localeDates()[lang]; !ok {
				ld = localeDate{pattern: "{y}-{mm}-{dd}"}
			}
		}
	}
	out := strings.NewReplacer("{y}", strconv.Itoa(t.Year()), "{yy}", fmt.Sprintf("%02d", t.Year()%100),
		"{m}", strconv.Itoa(int(t.Month())), "{mm}", fmt.Sprintf("%02d", int(t.Month())),
		"{d}", strconv.Itoa(t.Day()), "{dd}", fmt.Sprintf("%02d", t.Day())).Replace(ld.pattern)
	if ld.digits == "" {
		return out
	}
	digits := []rune(ld.digits)
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return digits[r-'0']
		}
		return r
	}, out)
}

// byNameOrder returns the changes sorted by name, as OpenSpec reports its
// warnings (in directory order).
func byNameOrder(changes []spec.ChangeSummary) []spec.ChangeSummary {
	out := append([]spec.ChangeSummary(nil), changes...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
