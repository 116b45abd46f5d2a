package engine

import (
	"strings"
	"time"

	"github.com/specstack/specstack/internal/agent"
)

// JobRequest describes a worker job of a run that is not a Runner's (a
// gh-specstack ticket's implementer, fixer, reviewer or validation
// command): the same Job every driver builds, so the SPECSTACK_*
// protocol cannot drift between the binaries.
type JobRequest struct {
	Role, Task, Dir, Command string
	Brief, Report, Findings  string
	Diff, Log, PIDFile       string
	Timeout                  time.Duration
	// Artifacts is the run's artifacts directory (SPECSTACK_ARTIFACTS).
	Artifacts string
	// Environment holds extra variables (NAME=value).
	Environment []string
	// Answer, Schema and Session are Job's, for an agent preset.
	Answer  string
	Schema  *agent.Schema
	Session string
	Allow   []string
}

// BuildJob builds the job q describes. A job without a pid file gets one
// beside its log, so a resumed run stops what a killed one left (RunJob).
func BuildJob(q JobRequest) Job {
	pid := q.PIDFile
	if pid == "" && q.Log != "" {
		pid = pidBeside(q.Log)
	}
	return Job{
		Command: q.Command, Dir: q.Dir, Role: q.Role, Task: q.Task, Log: q.Log, Timeout: q.Timeout,
		Brief: q.Brief, Report: q.Report, Findings: q.Findings, Diff: q.Diff, PIDFile: pid,
		Environment: append([]string{"SPECSTACK_ARTIFACTS=" + q.Artifacts}, q.Environment...),
		Answer:      q.Answer, Schema: q.Schema, Session: q.Session, Allow: q.Allow,
	}
}

// pidBeside is the pid file of the job whose log is log.
func pidBeside(log string) string { return strings.TrimSuffix(log, ".log") + ".pid" }
