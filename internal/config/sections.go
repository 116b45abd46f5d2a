package config

// KaisenConfig configures jj-kaisen.
type KaisenConfig struct {
	MaxParallel int `toml:"max-parallel"`
	// WorkspacesDir is the absolute directory under which task
	// workspaces are created (one folder per repository); the
	// SPECSTACK_WORKSPACES variable wins over it.
	WorkspacesDir string `toml:"workspaces-dir"`
	// Heartbeat is how often a run whose progress goes to a pipe names
	// its running workers, a Go duration ("30s"); "0s" turns it off.
	Heartbeat string `toml:"heartbeat"`
	// TestMap maps path globs to the test command that covers them.
	TestMap map[string]string `toml:"test-map"`
}

// ReviewConfig configures reviews.
type ReviewConfig struct {
	// MinConfidence (0-100) turns a reviewer's confidence score below it
	// into a blocking result; 0 disables the gate.
	MinConfidence int `toml:"min-confidence"`
}

// OpenSpecConfig configures jj-openspec.
type OpenSpecConfig struct {
	// MinGroupTasks is the minimum number of tasks a group needs before
	// fan-out is recommended (default 2).
	MinGroupTasks int `toml:"min-group-tasks"`
	// Verify are the commands of apply's verify gate, run in order on the
	// integrated change (--verify adds to them).
	Verify []string `toml:"verify"`
	// RiskMaxFiles: apply treats a change whose tasks name more files as
	// risky (no --no-verify, a reviewer required); 0 for no limit.
	RiskMaxFiles int `toml:"risk-max-files"`
	// RiskMaxModules: apply treats a change whose tasks name files in
	// more folders as risky; 0 for no limit.
	RiskMaxModules int `toml:"risk-max-modules"`
	// RiskMinGroupTasks is the size gate of a risky change's fan-out:
	// apply never fans out a risky change's group with fewer unchecked
	// tasks (0: 3; never below MinGroupTasks).
	RiskMinGroupTasks int `toml:"risk-min-group-tasks"`
	// Tracker is a command apply runs after the pull request is open, with
	// SPECSTACK_CHANGE, SPECSTACK_BOOKMARK and SPECSTACK_PR_URL set.
	Tracker string `toml:"tracker"`
	// PR: false makes apply push only, opening no pull request (as
	// --no-pr does); unset means true.
	PR *bool `toml:"pr"`
}

// OpensPR reports whether apply opens a pull request after the push
// ([openspec] pr, default true).
func (c OpenSpecConfig) OpensPR() bool { return c.PR == nil || *c.PR }

// StackConfig configures gh-specstack.
type StackConfig struct {
	HumanLabel string `toml:"human-label"` // label of tickets that need a person
	StackMode  string `toml:"stack-mode"`  // "native" or "chain"
}

// GitHubConfig configures how gh-specstack reaches GitHub.
type GitHubConfig struct {
	// Timeout bounds each request, a Go duration ("30s"); the
	// GH_SPECSTACK_TIMEOUT variable wins over it.
	Timeout string `toml:"timeout"`
}

// ExecutorConfig says where workers run.
type ExecutorConfig struct {
	// Kind is "local" (the default) or "github-actions"; --executor wins.
	Kind string `toml:"kind"`
	// Workflow is the worker workflow's file name under
	// .github/workflows (default specstack-worker.yml).
	Workflow string `toml:"workflow"`
	// Ref is the branch whose copy of the workflow runs (default: the
	// repository's default branch).
	Ref string `toml:"ref"`
	// RunsOn are the runner labels workflow init writes (default
	// ubuntu-latest).
	RunsOn []string `toml:"runs-on"`
	// MaxParallel bounds the runs at once (default: as for local workers).
	MaxParallel int `toml:"max-parallel"`
	// Poll is the wait between two looks at a run, a Go duration
	// (default 5s).
	Poll string `toml:"poll"`
}
