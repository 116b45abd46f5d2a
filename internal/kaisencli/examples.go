package kaisencli

// examples are each verb's --help example (cliapp.Spec.Examples).
var examples = map[string]string{
	"workflow":      "workflow init --worker claude",
	"workflow init": "workflow init --worker claude --runs-on ubuntu-latest",
	"init":          "init plan.md",
	"plan":          "plan plan.md",
	"brief":         "brief plan.md 2",
	"run":           `run plan.md --worker 'sh ~/bin/my-worker' --reviewer 'sh ~/bin/my-reviewer' --test 'make test' --yes`,
	"resume":        "resume --worker 'sh ~/bin/my-worker'",
	"status":        "status --json",
	"log":           "log",
	"abort":         "abort --yes",
	"sweep":         "sweep --all",
	"artifacts":     "artifacts",
	"start":         "start plan.md --yes",
	"fan-out":       "fan-out --wave 1 --json",
	"collect":       "collect --wave 1 --json",
	"review":        "review record --task 1 --passed",
	"review record": "review record --task 2 --findings findings.json",
	"fan-in":        "fan-in --wave 1",
	"gate":          "gate --test 'make test'",
	"conflicts":     "conflicts -r 'mutable()'",
	"resolve":       "resolve --strategy tasks tasks.md",
}
