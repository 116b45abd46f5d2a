package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/specstack/specstack/internal/lazyregexp"
)

// DefaultHeartbeat is how often a run writes its "still running" line
// when its progress goes to a pipe or file.
const DefaultHeartbeat = 30 * time.Second

// Progress is where a run's progress lines go, with what it shows while
// workers run: on a terminal, a live status line per running job (its
// elapsed time and the last line of its log), redrawn below the progress
// lines; elsewhere, every Heartbeat, one line naming the running jobs and
// their elapsed time. Status words are coloured only when Color is set
// (a terminal without NO_COLOR). Terminal and Color are decided by the
// caller, so tests choose them. The zero value writes nothing extra.
type Progress struct {
	Out       io.Writer
	Terminal  bool
	Color     bool
	Heartbeat time.Duration // pipes: a running-jobs line this often; 0: never
	Refresh   time.Duration // terminal: redraw period (default 1s)
	Width     int           // terminal: status line width in runes (default 100)
	Now       func() time.Time

	mu      sync.Mutex
	running []*progressJob
	drawn   int // status lines on the screen below the output
	stop    chan struct{}
	done    chan struct{}
}

type progressJob struct {
	label string // "task 3", "tasks 1,2"
	role  string
	log   string
	start time.Time
}

func (p *Progress) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Begin starts the ticker that redraws the status lines or writes the
// heartbeat; End stops it.
func (p *Progress) Begin() {
	period := p.Heartbeat
	if p.Terminal {
		period = p.Refresh
		if period <= 0 {
			period = time.Second
		}
	}
	if period <= 0 || p.stop != nil {
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.Tick()
			}
		}
	}()
}

// End stops the ticker and takes the status lines off the screen.
func (p *Progress) End() {
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// Started records that the role job of label ("task 3") began, writing
// to log.
func (p *Progress) Started(label, role, log string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, &progressJob{label: label, role: role, log: log, start: p.now()})
}

// Finished records that the role job of label ended.
func (p *Progress) Finished(label, role string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = slices.DeleteFunc(p.running, func(j *progressJob) bool { return j.label == label && j.role == role })
	if p.Terminal {
		p.clear()
		p.draw()
	}
}

// Tick redraws the status lines (terminal) or writes the heartbeat line
// (elsewhere) now.
func (p *Progress) Tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Terminal {
		p.clear()
		p.draw()
		return
	}
	if len(p.running) == 0 || p.Out == nil {
		return
	}
	items := make([]string, len(p.running))
	for i, j := range p.running {
		items[i] = fmt.Sprintf("%s (%s, %s)", j.label, j.role, p.elapsed(j))
	}
	fmt.Fprintf(p.Out, "still running: %s\n", strings.Join(items, ", "))
}

// Write writes progress lines above the status lines, colouring the
// status word of "task N: WORD" lines when Color is set.
func (p *Progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Out == nil {
		return len(b), nil
	}
	p.clear()
	out := b
	if p.Color {
		out = colorStatus(b)
	}
	if _, err := p.Out.Write(out); err != nil {
		return 0, err
	}
	p.draw()
	return len(b), nil
}

func (p *Progress) elapsed(j *progressJob) time.Duration {
	return p.now().Sub(j.start).Truncate(time.Second)
}

// clear erases the status lines drawn below the output (the cursor is on
// the line after them): up that many lines, erase to the end of screen.
func (p *Progress) clear() {
	if p.drawn > 0 && p.Out != nil {
		fmt.Fprintf(p.Out, "\x1b[%dA\x1b[J", p.drawn)
	}
	p.drawn = 0
}

func (p *Progress) draw() {
	if !p.Terminal || p.Out == nil {
		return
	}
	width := p.Width
	if width <= 0 {
		width = 100
	}
	var b strings.Builder
	for _, j := range p.running {
		line := fmt.Sprintf("  %s %s %s", j.label, j.role, p.elapsed(j))
		if last := lastLogLine(j.log); last != "" {
			line += " | " + last
		}
		b.WriteString(truncateRunes(line, width) + "\n")
	}
	io.WriteString(p.Out, b.String())
	p.drawn = len(p.running)
}

// lastLogLine is the last non-blank line of the log's final 4 KiB, with
// terminal control sequences and characters (a worker's colours) removed.
func lastLogLine(path string) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 4 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		f.Seek(fi.Size()-tail, io.SeekStart)
	}
	buf, err := io.ReadAll(io.LimitReader(f, tail))
	if err != nil && len(buf) == 0 {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(buf, " \t\r\n"), []byte("\n"))
	last := ansiRe.ReplaceAllString(string(bytes.TrimSpace(lines[len(lines)-1])), "")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, last)
}

// ansiRe matches a terminal control sequence (a worker's colours).
var ansiRe = lazyregexp.New(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// statusColors are the ANSI colours of the status words a progress line
// can start with ("task 3: failed, …").
var statusColors = map[string]string{
	StatusDone: "32", "merged": "32", "squashed": "32", "approved": "32", "passed": "32",
	StatusConcerns: "33", StatusBlocked: "33", StatusNeedsContext: "33", "empty": "33",
	StatusCrashed: "31", StatusRejected: "31", StatusDivergent: "31", StatusNoChange: "31", StatusBroken: "31", "failed": "31", "review": "33",
}

// colorStatus colours the word after "task N: " on each line.
func colorStatus(b []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		s := string(line)
		head, rest, ok := strings.Cut(s, ": ")
		if !ok || !strings.HasPrefix(head, "task ") {
			out.WriteString(s)
			continue
		}
		end := strings.IndexFunc(rest, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z') })
		if end < 0 {
			end = len(rest)
		}
		word := rest[:end]
		code, known := statusColors[word]
		if !known {
			out.WriteString(s)
			continue
		}
		fmt.Fprintf(&out, "%s: \x1b[%sm%s\x1b[0m%s", head, code, word, rest[end:])
	}
	return out.Bytes()
}

// runTracked runs the worker job j for label ("task 3"), saying where its
// log is when it starts and showing it as running until it ends.
func (r *Runner) runTracked(ctx context.Context, label string, j Job) Result {
	r.logf("%s: %s started in %s (log %s)", label, j.Role, j.Dir, j.Log)
	if r.Progress != nil {
		r.Progress.Started(label, j.Role, j.Log)
		defer r.Progress.Finished(label, j.Role)
	}
	return RunJob(ctx, j)
}
