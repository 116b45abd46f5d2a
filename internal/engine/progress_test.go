package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressTerminal: on a terminal, each running job has a status line
// with its elapsed time and its log's last line, redrawn below progress
// lines and erased when the job ends; status words are coloured only
// with Color.
func TestProgressTerminal(t *testing.T) {
	log := filepath.Join(t.TempDir(), "task-1.log")
	os.WriteFile(log, []byte("compiling\n\x1b[32mrunning tests\x1b[0m\n\n"), 0o644)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	p := &Progress{Out: &out, Terminal: true, Color: true, Now: func() time.Time { return now }}
	p.Started("task 1", RoleImplementer, log)
	now = now.Add(75 * time.Second)
	p.Tick()
	if got := out.String(); got != "  task 1 implementer 1m15s | running tests\n" {
		t.Errorf("status line %q", got)
	}
	out.Reset()
	p.Write([]byte("task 2: done, change abc, 1 file\n"))
	if got, want := out.String(), "\x1b[1A\x1b[Jtask 2: \x1b[32mdone\x1b[0m, change abc, 1 file\n  task 1 implementer 1m15s | running tests\n"; got != want {
		t.Errorf("write over the status line:\n got %q\nwant %q", got, want)
	}
	out.Reset()
	p.Finished("task 1", RoleImplementer)
	if got := out.String(); got != "\x1b[1A\x1b[J" {
		t.Errorf("finished: %q", got)
	}
	out.Reset()
	p.Color = false
	p.Write([]byte("task 3: failed, change def, 0 files\n"))
	if got := out.String(); got != "task 3: failed, change def, 0 files\n" {
		t.Errorf("without colour: %q", got)
	}
}

// TestProgressPipe: elsewhere, no status lines and no colour; Tick writes
// one heartbeat line naming the running jobs and their elapsed time.
func TestProgressPipe(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	p := &Progress{Out: &out, Heartbeat: time.Hour, Now: func() time.Time { return now }}
	p.Tick()
	if out.Len() != 0 {
		t.Errorf("heartbeat with nothing running: %q", out.String())
	}
	p.Started("task 1", RoleImplementer, "")
	now = now.Add(30 * time.Second)
	p.Started("tasks 2 and 3", RoleReviewer, "")
	now = now.Add(5 * time.Second)
	p.Write([]byte("task 4: done, change x, 2 files\n"))
	p.Tick()
	want := "task 4: done, change x, 2 files\nstill running: task 1 (implementer, 35s), tasks 2 and 3 (reviewer, 5s)\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Error("escape codes in a pipe")
	}
	// Begin/End with a real ticker.
	out.Reset()
	p.Heartbeat = 20 * time.Millisecond
	p.Now = nil
	p.Begin()
	time.Sleep(150 * time.Millisecond)
	p.End()
	if !strings.Contains(out.String(), "still running: task 1 (implementer, ") {
		t.Errorf("ticker wrote %q", out.String())
	}
}
