package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/spec"
)

// Manifest is a preview (--dry-run): what apply would do, recorded so that
// `apply --from-preview ID` executes exactly it, refusing when the
// repository moved since (its operation is recorded).
type Manifest struct {
	ID           string           `toml:"id" json:"id"`
	Op           string           `toml:"op" json:"op"`
	Shape        string           `toml:"shape" json:"shape"`
	Change       string           `toml:"change" json:"change"`
	Level        string           `toml:"level" json:"level"`
	LevelReasons []string         `toml:"level_reasons" json:"level_reasons"`
	Distribution string           `toml:"distribution" json:"distribution"`
	Reasons      []string         `toml:"reasons" json:"reasons"`
	Groups       []string         `toml:"groups,omitempty" json:"groups,omitempty"`
	Base         string           `toml:"base" json:"base"`
	Describe     string           `toml:"describe,omitempty" json:"describe,omitempty"`
	Bookmark     string           `toml:"bookmark" json:"bookmark"`
	Workers      []ManifestWorker `toml:"workers" json:"workers"`
	Verify       []string         `toml:"verify" json:"verify"`
	Reviewer     string           `toml:"reviewer,omitempty" json:"reviewer,omitempty"`
	ArchiveAs    string           `toml:"archive_as" json:"archive_as"`
	ArchiveDiff  string           `toml:"archive_diff" json:"archive_diff"`
	Push         string           `toml:"push" json:"push"`
	Request      Request          `toml:"request" json:"request"`
}

// ManifestWorker is one worker of a preview with its brief.
type ManifestWorker struct {
	Task  int      `toml:"task" json:"task"`
	Title string   `toml:"title" json:"title"`
	Files []string `toml:"files" json:"files"`
	Brief string   `toml:"brief" json:"brief"`
}

func previewPath(dir, id string) string { return filepath.Join(dir, "previews", id+".toml") }

var previewID = lazyregexp.New(`^[0-9a-f]{12}$`)

// Preview resolves and checks req as apply would, changes nothing in the
// repository, and records the manifest under the ledger directory.
func Preview(ctx context.Context, env *Env, req Request) (*Manifest, error) {
	p, dec, err := Prepare(ctx, env, req)
	if err != nil {
		return nil, err
	}
	if err := engine.NeedWorker(req.Worker, env.Repo.Root); err != nil {
		return nil, err
	}
	op, err := env.Repo.OpHead(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the operation the preview is of: %w", err)
	}
	at, err := ReadAt(ctx, env)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Op: op, Shape: "implementing", Change: p.Change, Level: p.Level, LevelReasons: p.LevelReasons, Distribution: p.Distribution, Reasons: p.Reasons,
		Groups: p.Groups, Bookmark: p.Bookmark, Verify: p.Verify, Reviewer: p.Reviewer, Request: req}
	m.Request.Change = p.Change
	if at.Empty {
		m.Base = fmt.Sprintf("@- (%s): @ is empty and becomes the change %q", record.ShortID(firstOr(at.ParentChangeIDs)), ImplementMessage(p.Change))
	} else {
		m.Base = fmt.Sprintf("@ (%s), then a new change %q on it", record.ShortID(at.ChangeID), ImplementMessage(p.Change))
		if strings.TrimSpace(at.Description) == "" {
			if err := onlyArtifacts(env, p.Change, at.Files); err != nil {
				return nil, err
			}
			m.Describe = ArtifactsMessage(p.Change)
		}
	}
	for _, t := range dec.Tasks {
		m.Workers = append(m.Workers, ManifestWorker{Task: t.Num, Title: t.Title, Files: t.Files, Brief: dec.Briefs[t.Num]})
	}
	plan, err := env.Root.PlanArchive(p.Change, spec.ArchiveOptions{Yes: true})
	if err != nil {
		return nil, fmt.Errorf("preview the archive of %s: %w", p.Change, err)
	}
	m.ArchiveAs, m.ArchiveDiff = plan.ArchiveName, plan.Diff()
	m.Push = "none (--no-push)"
	switch {
	case req.NoPR && !req.NoPush:
		m.Push = fmt.Sprintf("jj git push -b %s to %s; no pull request (--no-pr)", p.Bookmark, gitx.Origin)
	case !req.NoPush:
		m.Push = fmt.Sprintf("jj git push -b %s to %s, then a pull request with the archived proposal.md", p.Bookmark, gitx.Origin)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	m.ID = hex.EncodeToString(sum[:6])
	if err := ledger.WriteFile(previewPath(env.Dir, m.ID), m); err != nil {
		return nil, err
	}
	return m, nil
}

// FromPreview executes the preview id exactly: refused (exit 5) when the
// repository's operation moved since it was made, or when what apply
// decides now differs from it.
func FromPreview(ctx context.Context, env *Env, id string) (*Result, error) {
	if !previewID.MatchString(id) {
		return nil, exitcode.New(exitcode.Usage, "--from-preview %q: give the 12-hex-digit id a --dry-run printed", id)
	}
	var m Manifest
	if err := ledger.ReadFile(previewPath(env.Dir, id), &m); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, exitcode.New(exitcode.Usage, "no preview %s in %s: run apply --dry-run first", id, filepath.Join(env.Dir, "previews"))
		}
		return nil, err
	}
	req := m.Request
	req.Expect = &m
	return Apply(ctx, env, req)
}

// checkExpected refuses an apply whose repository or decision differs
// from its preview.
func checkExpected(ctx context.Context, env *Env, m *Manifest, p *Plan) error {
	op, err := env.Repo.OpHead(ctx)
	if err != nil {
		return err
	}
	if op != m.Op {
		return exitcode.New(exitcode.NeedsChoice, "preview %s was made at operation %s; the repository moved since (now %s): nothing done; preview again (apply --dry-run)", m.ID, record.ShortID(m.Op), record.ShortID(op))
	}
	if p.Change != m.Change || p.Distribution != m.Distribution || !slices.Equal(p.Groups, m.Groups) || p.Bookmark != m.Bookmark || (m.Level != "" && p.Level != m.Level) {
		return exitcode.New(exitcode.NeedsChoice, "preview %s no longer matches what apply decides (%s %s, groups %v): preview again", m.ID, p.Change, p.Distribution, p.Groups)
	}
	return nil
}

func firstOr(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}
