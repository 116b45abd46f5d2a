package config

// KaisenConfig configures jj-kaisen.
type KaisenConfig struct {
	MaxParallel int `toml:"max-parallel"`
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
}

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
