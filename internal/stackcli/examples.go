package stackcli

// examples are each verb's --help example (cliapp.Spec.Examples).
var examples = map[string]string{
	"plan":              "plan 42",
	"recipes":           "recipes 42",
	"link":              "link feat/schema feat/api feat/cli",
	"push":              "push feat/schema",
	"pr":                "pr feat/schema --title 'Schema for search' --body-file pr.md --draft",
	"run":               "run 42 --worker 'sh ~/bin/my-worker' --reviewer 'sh ~/bin/my-reviewer' --yes",
	"status":            "status --json",
	"resume":            "resume",
	"abort":             "abort",
	"workflow":          "workflow init --worker claude",
	"workflow init":     "workflow init --worker claude --runs-on ubuntu-latest",
	"install-extension": "install-extension",
}
