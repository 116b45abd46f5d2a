package engine

import (
	"fmt"
	"strings"
)

// Every worker job of a run is built here, so driver mode (which runs it)
// and step mode (which prints it) cannot drift apart.

// newJob is the part every job shares: the command, where it runs, its
// log, its pid file beside the log (a resumed run stops what a killed one
// left running: RunJob), the run's timeout and SPECSTACK_ARTIFACTS.
func (r *Runner) newJob(role, task, dir, command, log string) Job {
	return Job{
		Command: command, Dir: dir, Role: role, Task: task, Log: log, Timeout: r.timeout(),
		PIDFile:     pidBeside(log),
		Environment: []string{"SPECSTACK_ARTIFACTS=" + ArtifactsDir(r.Dir)},
	}
}

// job is task t's implementer or fixer job in wave w.
func (r *Runner) job(w int, t *TaskState, role string) Job {
	j := r.newJob(role, fmt.Sprint(t.Num), t.Path, r.worker(), r.LogPath(t.Num))
	j.Brief, j.Report, j.PIDFile = r.BriefPath(t.Num), r.ReportPath(t.Num), r.PIDPath(t.Num)
	if role == RoleFixer {
		j.Findings = r.FindingsPath(t.Num)
	}
	if w > 1 {
		j.PriorWaves = r.PriorWavesPath()
	}
	j.Allow = r.testCommands(t.Files)
	return j
}

// testJob runs a test command in dir for task (a number, or "all" for
// the final gate).
func (r *Runner) testJob(command, dir, task, log string) Job {
	return r.newJob("test", task, dir, command, log)
}

// reviewJob reviews the tasks nums from dir, with the batch's artifacts
// named by stem.
func (r *Runner) reviewJob(dir string, nums []string, stem string) Job {
	j := r.newJob(RoleReviewer, strings.Join(nums, ","), dir, r.reviewer(), r.art(stem+".log"))
	j.Brief, j.Report = r.art(stem+".md"), r.art(stem+"-report.md")
	j.Findings, j.Diff = r.art(stem+"-findings.json"), r.art(stem+".diff")
	return j
}

// TaskJob is one task's implementer job as step mode hands it out.
type TaskJob struct {
	Task      int    `json:"task"`
	Title     string `json:"title"`
	Workspace string `json:"workspace"`
	Path      string `json:"path"`
	Brief     string `json:"brief"`
	Report    string `json:"report"`
	// PriorWaves is set from wave 2: what earlier waves merged.
	PriorWaves string `json:"prior_waves,omitempty"`
	// Job is exactly what the driver would run for the task (its argv is
	// empty when no worker command is configured: start your own worker
	// with Job's dir and env).
	Job JobSpec `json:"job"`
}

// WaveJobs returns the implementer job of every provisioned task of
// wave w that is not squashed: what `fan-out` prints.
func (r *Runner) WaveJobs(w int) ([]TaskJob, error) {
	nums, err := r.WaveTasks(w)
	if err != nil {
		return nil, err
	}
	st := r.State()
	var jobs []TaskJob
	for _, n := range nums {
		t := st.Tasks[n]
		if t.Squashed || t.Workspace == "" {
			continue
		}
		j := r.job(w, t, RoleImplementer)
		jobs = append(jobs, TaskJob{Task: n, Title: t.Title, Workspace: t.Workspace, Path: t.Path,
			Brief: j.Brief, Report: j.Report, PriorWaves: j.PriorWaves, Job: j.Spec()})
	}
	return jobs, nil
}
