package openspeccli

// examples are each verb's --help example (cliapp.Spec.Examples).
var examples = map[string]string{
	"init":         "init",
	"list":         "list --json",
	"status":       "status add-export --json",
	"validate":     "validate add-export --strict",
	"check":        "check",
	"rebase":       "rebase add-export --dry-run",
	"archive":      "archive add-export --yes",
	"apply":        `apply add-export --worker 'sh ~/bin/my-worker' --verify 'make test'`,
	"sync":         "sync add-export --dry-run",
	"tasks":        "tasks add-export --json",
	"tasks tick":   "tasks tick add-export 1.1",
	"tasks untick": "tasks untick add-export 1.1",
	"cli":          "cli show add-export",
	"explore":      "explore 'caching for search' --findings notes/search.md --worker 'sh ~/bin/my-worker'",
	"propose":      "propose add-search --worker 'sh ~/bin/my-worker'",
	"new":          "new add-search --worker 'sh ~/bin/my-worker'",
	"ff":           "ff add-search --worker 'sh ~/bin/my-worker'",
	"relay":        "relay 'search by tag' --worker 'sh ~/bin/my-worker'",
	"relay status": "relay status --json",
	"relay go":     "relay go search-by-tag",
	"relay no-go":  "relay no-go search-by-tag",
	"conflicts":    "conflicts -r 'mutable()'",
	"resolve":      "resolve --strategy tasks openspec/changes/add-export/tasks.md",
}
