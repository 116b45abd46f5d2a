package conflict

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

// ToolName is the name the merge tool is registered under for one call.
const ToolName = "specstack"

// ResolveRequest says what to resolve in which revision.
type ResolveRequest struct {
	Rev   string   // one revision; "" means @
	Paths []string // repository-relative paths; empty with All
	All   bool     // every conflicted file: tasks for files named tasks.md
	// Strategy applies to Paths, and with All to files not named tasks.md;
	// nil with All leaves those files alone.
	Strategy *Strategy
	// Hunks limits the strategy to these hunks (1-based, as jj numbers
	// them in the file) of the one path given; empty means all.
	Hunks []int
	// Program is this binary (os.Executable), which jj runs as the merge
	// tool through its hidden merge-tool command.
	Program string
}

// FileOutcome is what became of one file.
type FileOutcome struct {
	Path     string `json:"path"`
	Strategy string `json:"strategy,omitempty"`
	Resolution
	// Conflicted is whether jj still records a conflict in the file
	// afterwards (read back from jj, not assumed).
	Conflicted bool   `json:"conflicted"`
	Error      string `json:"error,omitempty"`
}

// ResolveReport is the outcome of ResolveInRevision.
type ResolveReport struct {
	ChangeID string        `json:"change_id"`
	Files    []FileOutcome `json:"files"`
	// Remaining are the files still conflicted in the revision, including
	// those that were not asked for.
	Remaining []string `json:"remaining"`
}

// ErrNotConflicted reports a path that has no conflict in the revision.
var ErrNotConflicted = errors.New("not conflicted")

// ErrBadRequest reports a request that cannot be carried out as asked;
// nothing was changed.
var ErrBadRequest = errors.New("nothing was changed")

// ResolveInRevision resolves conflicted files of one revision without
// opening any tool: for each file it plans the resolution from jj's own
// materialized markers, then has jj run this binary as a merge tool
// (`jj resolve --tool`, defined for that call only), which rewrites the
// markers the same way. jj records what remains as conflicts, so history
// stays clean and the working copy, if it is the revision, is updated.
// Conflicts with more than two sides, which jj gives no merge tool, are
// edited in place when the revision is the working copy.
func ResolveInRevision(ctx context.Context, repo *jjx.Repo, req ResolveRequest) (ResolveReport, error) {
	rev := req.Rev
	if rev == "" {
		rev = "@"
	}
	if err := repo.CheckRevset(ctx, rev); err != nil {
		return ResolveReport{}, err
	}
	c, err := repo.One(ctx, rev)
	if errors.Is(err, jjx.ErrNotOneRevision) {
		return ResolveReport{}, fmt.Errorf("resolve: %w: pass -r with one revision (%w)", err, ErrBadRequest)
	}
	if err != nil {
		return ResolveReport{}, fmt.Errorf("resolve in %q: %w", rev, err)
	}
	at := jjx.ID(c.ChangeID)
	rep := ResolveReport{ChangeID: c.ChangeID}
	conflicted, err := repo.ConflictedFiles(ctx, at)
	if err != nil {
		return rep, fmt.Errorf("list conflicted files of %s: %w", short(c.ChangeID), err)
	}
	targets := req.Paths
	if req.All {
		targets = conflicted
	}
	if len(req.Hunks) > 0 && (req.All || len(targets) != 1) {
		return rep, fmt.Errorf("--hunk needs exactly one PATH (%w)", ErrBadRequest)
	}
	// Files of the working copy that jj records as resolved but whose
	// text holds markers (as `jj openspec rebase` writes them): resolved
	// in place, their markers being the only record of the conflict.
	text := map[string]bool{}
	for _, p := range targets {
		// Nothing is read or written through a link leaving the
		// repository, whichever revision is resolved.
		if _, err := confine.Path(repo.Root, p); err != nil {
			return rep, err
		}
		if !slices.Contains(conflicted, p) {
			if ok, err := textConflict(ctx, repo, c, p); err != nil || ok {
				if err != nil {
					return rep, err
				}
				text[p] = true
				continue
			}
			return rep, fmt.Errorf("%s at %s: %w (conflicted there: %s)", p, short(c.ChangeID), ErrNotConflicted, listOrNone(conflicted))
		}
	}
	if len(req.Hunks) > 0 {
		content, err := repo.FileShow(ctx, at, targets[0])
		if err != nil {
			return rep, fmt.Errorf("read %s at %s: %w", targets[0], short(c.ChangeID), err)
		}
		n := len(Parse(content).Hunks)
		for _, h := range req.Hunks {
			if h < 1 || h > n {
				return rep, fmt.Errorf("%s has %s, no hunk %d (%w)", targets[0], plural.Count(n, "hunk", "hunks"), h, ErrBadRequest)
			}
		}
	}
	report, err := os.CreateTemp("", "specstack-resolve-*.jsonl")
	if err != nil {
		return rep, fmt.Errorf("create merge-tool report: %w", err)
	}
	report.Close()
	defer os.Remove(report.Name())

	for _, p := range targets {
		out := FileOutcome{Path: p}
		var err error
		s, ok := strategyFor(p, req)
		switch {
		case !ok:
			out.Resolution, err = leaveAll(ctx, repo, at, p, "no --strategy was given and it is not a tasks.md: refusing to guess; pass --strategy")
		case text[p]:
			out.Strategy = s.String()
			out.Resolution, err = resolveText(ctx, repo, p, s, req.Hunks)
		default:
			out.Strategy = s.String()
			out.Resolution, err = resolveOne(ctx, repo, at, c, p, s, req.Hunks, req.Program, report.Name())
		}
		// A file's failure is its outcome's, not the whole request's: the
		// other files are still resolved and reported.
		if err != nil {
			out.Error = err.Error()
		}
		rep.Files = append(rep.Files, out)
	}

	remaining, err := repo.ConflictedFiles(ctx, at)
	if err != nil {
		return rep, fmt.Errorf("list conflicted files of %s after resolving: %w", short(c.ChangeID), err)
	}
	rep.Remaining = remaining
	if rep.Remaining == nil {
		rep.Remaining = []string{}
	}
	for i := range rep.Files {
		f := &rep.Files[i]
		if f.Resolved == nil {
			f.Resolved = []HunkReport{}
		}
		if f.Left == nil {
			f.Left = []HunkReport{}
		}
		f.Conflicted = slices.Contains(remaining, f.Path)
		if text[f.Path] {
			f.Conflicted = len(f.Left) > 0
			continue
		}
		// Never claim what jj does not record.
		switch {
		case f.Error != "":
		case !f.Conflicted && len(f.Left) > 0:
			f.Error = fmt.Sprintf("jj records the file as resolved although %s %s left in it", plural.Count(len(f.Left), "hunk", "hunks"), plural.Word(len(f.Left), "was", "were"))
		case f.Conflicted && len(f.Left) == 0 && f.Changed:
			f.Error = "jj still records a conflict although every hunk was resolved"
		}
	}
	return rep, nil
}

func listOrNone(ps []string) string {
	if len(ps) == 0 {
		return "none"
	}
	return strings.Join(ps, ", ")
}

func strategyFor(p string, req ResolveRequest) (Strategy, bool) {
	if req.All && path.Base(p) == "tasks.md" {
		return Strategy{Kind: Tasks}, true
	}
	if req.Strategy != nil {
		return *req.Strategy, true
	}
	return Strategy{}, false
}

// leaveAll reports every hunk of p as left for reason.
func leaveAll(ctx context.Context, repo *jjx.Repo, at, p, reason string) (Resolution, error) {
	var res Resolution
	content, err := repo.FileShow(ctx, at, p)
	if err != nil {
		return res, fmt.Errorf("read %s: %w", p, err)
	}
	f := Parse(content)
	res.Before, res.Problems = len(f.Hunks), f.Problems
	for _, h := range f.Hunks {
		res.Left = append(res.Left, report(h, reason))
	}
	return res, nil
}

// resolveOne resolves p in revision c (at) through jj's merge tool. The
// Resolution says what became of each hunk even when the error is not nil.
func resolveOne(ctx context.Context, repo *jjx.Repo, at string, c jjx.Commit, p string, s Strategy, hunks []int, program, reportPath string) (Resolution, error) {
	content, err := repo.FileShow(ctx, at, p)
	if err != nil {
		return Resolution{}, fmt.Errorf("read %s: %w", p, err)
	}
	f := Parse(content)
	plan := ResolveHunks(f, s, hunks)
	if !plan.Changed {
		return plan, nil
	}
	if len(plan.Content) == 0 {
		return leftWith(f, emptyReason(f, s, c, p)), nil
	}
	if maxSides(f) > 2 {
		return resolveInPlace(ctx, repo, c, p, s, hunks, f, plan)
	}
	tool := jjx.MergeTool{
		Name:    ToolName,
		Program: program,
		Args:    []string{"merge-tool", "--strategy", s.String(), "--report", reportPath, "--path", p},
	}
	for _, n := range hunks {
		tool.Args = append(tool.Args, "--hunk", strconv.Itoa(n))
	}
	tool.Args = append(tool.Args, "$base", "$left", "$right", "$output")
	// One file per call: the report then holds this file's line only.
	if err := os.Truncate(reportPath, 0); err != nil {
		return plan, fmt.Errorf("reset merge-tool report %s: %w", reportPath, err)
	}
	if err := repo.ResolveWithTool(ctx, at, p, tool); err != nil {
		return leftWith(f, "jj resolve failed: see the error"), &resolveError{change: c.ChangeID, err: err}
	}
	got, err := readToolReport(reportPath)
	if err != nil {
		return leftWith(f, "the merge tool did not report: see the error"), err
	}
	return got, nil
}

// resolveError is a failed `jj resolve`: its message is jj's own stderr
// when jj said something, the whole process error otherwise.
type resolveError struct {
	change string
	err    error
}

func (e *resolveError) Error() string {
	msg := e.err.Error()
	var xe *xec.Error
	if errors.As(e.err, &xe) && strings.TrimSpace(xe.Stderr) != "" {
		msg = strings.TrimSpace(xe.Stderr)
	}
	return fmt.Sprintf("jj resolve in %s: %s", short(e.change), msg)
}

func (e *resolveError) Unwrap() error { return e.err }

// leftWith reports every hunk of f as left, for reason.
func leftWith(f *File, reason string) Resolution {
	res := Resolution{Before: len(f.Hunks), Problems: f.Problems, Content: f.Render()}
	for _, h := range f.Hunks {
		res.Left = append(res.Left, report(h, reason))
	}
	return res
}

// emptyReason explains why an empty result is not written: jj takes an
// empty file from a merge tool as no answer, and the side chosen may be a
// deletion, which only restoring that side expresses.
func emptyReason(f *File, s Strategy, c jjx.Commit, p string) string {
	from := "the revision of that side"
	if len(f.Hunks) > 0 {
		var side *Term
		switch s.Kind {
		case Ours:
			side = &f.Hunks[0].Sides[0]
		case Theirs:
			side = &f.Hunks[0].Sides[1]
		case SideN:
			side = &f.Hunks[0].Sides[s.N-1]
		}
		if side != nil && side.Label.ChangeID != "" {
			from = side.Label.ChangeID
		}
	}
	return fmt.Sprintf("%s leaves the file empty (did that side delete it?), which jj does not take from a merge tool: "+
		"take that side whole with `jj restore --from %s --into %s -- %s`", s, from, short(c.ChangeID), p)
}

// resolveInPlace edits the working-copy file of a conflict with more than
// two sides, which jj hands no merge tool; jj reads the markers that
// remain back when it snapshots the working copy.
func resolveInPlace(ctx context.Context, repo *jjx.Repo, c jjx.Commit, p string, s Strategy, hunks []int, f *File, plan Resolution) (Resolution, error) {
	wc, err := repo.One(ctx, "@")
	if err != nil {
		return plan, fmt.Errorf("find the working copy: %w", err)
	}
	if wc.ChangeID != c.ChangeID {
		return leftWith(f, fmt.Sprintf("it has %d sides and jj hands merge tools two: run `jj edit %s` and resolve again",
			maxSides(f), short(c.ChangeID))), nil
	}
	file, err := confine.RegularFile(repo.Root, p)
	if err != nil {
		return leftWith(f, "it cannot be edited in place: see the error"), err
	}
	data, err := regfile.Read(file) // a FIFO swapped in since is refused, not waited on
	if err != nil {
		return plan, err
	}
	return rewriteMarkers(ctx, repo, file, data, s, hunks)
}

// rewriteMarkers applies s to the markers in data, the working-copy file
// file, writes the result over it and snapshots the working copy.
func rewriteMarkers(ctx context.Context, repo *jjx.Repo, file string, data []byte, s Strategy, hunks []int) (Resolution, error) {
	res := ResolveHunks(Parse(data), s, hunks)
	if !res.Changed {
		return res, nil
	}
	if err := replaceFile(file, res.Content); err != nil {
		return res, err
	}
	if err := repo.Snapshot(ctx); err != nil {
		return res, fmt.Errorf("snapshot the working copy: %w", err)
	}
	return res, nil
}

// replaceFile writes data to a new file beside file (never through a
// name someone else made) and renames it over file, keeping its mode.
func replaceFile(file string, data []byte) error {
	info, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("stat %s: %w", file, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".specstack-resolve-*")
	if err != nil {
		return fmt.Errorf("create a file beside %s: %w", file, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), info.Mode().Perm())); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("replace %s: %w", file, err)
	}
	return nil
}

// ToolReport is one line of the merge tool's report file.
type ToolReport struct {
	Path       string     `json:"path"`
	Resolution Resolution `json:"resolution"`
}

func readToolReport(reportPath string) (Resolution, error) {
	f, err := os.Open(reportPath)
	if err != nil {
		return Resolution{}, fmt.Errorf("read merge-tool report %s: %w", reportPath, err)
	}
	defer f.Close()
	var last *ToolReport
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var r ToolReport
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return Resolution{}, fmt.Errorf("decode merge-tool report %s: %w", reportPath, err)
		}
		last = &r
	}
	if err := sc.Err(); err != nil {
		return Resolution{}, fmt.Errorf("read merge-tool report %s: %w", reportPath, err)
	}
	if last == nil {
		return Resolution{}, fmt.Errorf("the merge tool wrote no report in %s", reportPath)
	}
	return last.Resolution, nil
}

// MergeToolRequest is what jj passes the hidden merge-tool command.
type MergeToolRequest struct {
	Strategy     Strategy
	Hunks        []int  // only these hunks; empty means all
	Output       string // $output: jj's materialized conflict, rewritten in place
	Path         string // $path, for the report
	Report       string // report file to append to; "" for none
	MarkerLength int    // $marker_length (informational: markers are reused)
}

// ErrUnchanged is returned by RunMergeTool when the strategy resolves no
// hunk: jj then keeps the file as it was.
var ErrUnchanged = errors.New("the strategy resolved no hunk")

// RunMergeTool resolves jj's $output file in place and appends what it
// did to the report file.
func RunMergeTool(req MergeToolRequest) (Resolution, error) {
	data, err := os.ReadFile(req.Output)
	if err != nil {
		return Resolution{}, fmt.Errorf("read %s: %w", req.Output, err)
	}
	res := ResolveHunks(Parse(data), req.Strategy, req.Hunks)
	if res.Changed {
		if err := os.WriteFile(req.Output, res.Content, 0o644); err != nil {
			return res, fmt.Errorf("write %s: %w", req.Output, err)
		}
	}
	if req.Report != "" {
		line, err := json.Marshal(ToolReport{Path: req.Path, Resolution: res})
		if err != nil {
			return res, fmt.Errorf("encode report: %w", err)
		}
		f, err := os.OpenFile(req.Report, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return res, fmt.Errorf("open report %s: %w", req.Report, err)
		}
		_, werr := f.Write(append(line, '\n'))
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			return res, fmt.Errorf("write report %s: %w", req.Report, err)
		}
	}
	if !res.Changed {
		return res, fmt.Errorf("%s: %w", req.Path, ErrUnchanged)
	}
	return res, nil
}

func maxSides(f *File) int {
	n := 0
	for _, h := range f.Hunks {
		n = max(n, len(h.Sides))
	}
	return n
}

// textConflict reports whether p, which jj does not record as conflicted
// in c, holds readable conflict markers in the working copy (c must be @).
func textConflict(ctx context.Context, repo *jjx.Repo, c jjx.Commit, p string) (bool, error) {
	wc, err := repo.One(ctx, "@")
	if err != nil {
		return false, fmt.Errorf("find the working copy: %w", err)
	}
	if wc.ChangeID != c.ChangeID {
		return false, nil
	}
	// A path that is missing or not a regular file holds no markers: the
	// caller then reports it as not conflicted. Any other failure is one.
	file, err := confine.RegularFile(repo.Root, p)
	if errors.Is(err, fs.ErrNotExist) || errors.As(err, new(*confine.EscapeError)) || errors.As(err, new(*confine.NotRegularError)) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	data, err := regfile.Read(file)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, regfile.ErrNotRegular) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	f := Parse(data)
	return len(f.Hunks) > 0 && len(f.Problems) == 0, nil
}

// resolveText applies s to the markers in the working-copy file p.
func resolveText(ctx context.Context, repo *jjx.Repo, p string, s Strategy, hunks []int) (Resolution, error) {
	file, err := confine.RegularFile(repo.Root, p)
	if err != nil {
		return Resolution{}, err
	}
	data, err := regfile.Read(file)
	if err != nil {
		return Resolution{}, err
	}
	return rewriteMarkers(ctx, repo, file, data, s, hunks)
}
