package pipeline

import (
	"io"
	"strings"
	"sync"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/apply"
)

// ReportPipeline is the summary of run as its members' ledgers tell it
// (status), without running anything.
func ReportPipeline(run *PipelineRun) *PipelineResult {
	res := newResult(run)
	for _, m := range run.Members {
		res.Members = append(res.Members, run.outcome(m))
	}
	return res
}

// newResult is run's summary without its members' lines.
func newResult(run *PipelineRun) *PipelineResult {
	return &PipelineResult{RunID: run.RunID, Excluded: run.Excluded, Blocked: run.Layout.Blocked,
		Cycles: run.Layout.Cycles, Notes: run.Layout.Notes}
}

// lockedWriter serialises the members' progress lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prefixWriter starts every line with prefix.
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	mid    bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var s strings.Builder
	for _, c := range string(b) {
		if !p.mid {
			s.WriteString(p.prefix)
			p.mid = true
		}
		s.WriteRune(c)
		if c == '\n' {
			p.mid = false
		}
	}
	if _, err := io.WriteString(p.w, s.String()); err != nil {
		return 0, err
	}
	return len(b), nil
}

// RefuseUnfinished refuses a new run while an apply or a pipeline is
// unfinished in the ledger dir (exit 5, saying how to resume or undo it).
func RefuseUnfinished(dir string) error {
	if p, err := UnfinishedPipeline(dir); err != nil || p != nil {
		if err != nil {
			return err
		}
		return UnfinishedPipelineError(p)
	}
	if p, _, err := apply.Unfinished(dir); err != nil || p != nil {
		if err != nil {
			return err
		}
		return exitcode.New(exitcode.NeedsChoice, "an unfinished apply of change %q (run %s) is in the ledger: `jj openspec apply %s` resumes it, `jj openspec apply --abort` undoes it", p.Change, p.RunID, p.Change)
	}
	return nil
}

// UnfinishedPipelineError refuses a new apply while pipeline p is
// unfinished.
func UnfinishedPipelineError(p *PipelineRun) error {
	return exitcode.New(exitcode.NeedsChoice, "an unfinished pipeline (run %s) is in the ledger: `jj openspec apply` resumes it, `jj openspec apply --abort` ends it", p.RunID)
}
