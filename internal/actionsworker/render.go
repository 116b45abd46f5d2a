package actionsworker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/agent"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/xec"
)

// Path is where the workflow lives in the repository; File is its name,
// which the dispatch API takes as the workflow's id.
const (
	File = "specstack-worker.yml"
	Path = ".github/workflows/" + File
)

// The workflow's dispatch inputs.
const (
	InputRunID        = "run_id"
	InputJobID        = "job_id"
	InputDispatchID   = "dispatch_id"
	InputRole         = "role"
	InputTask         = "task"
	InputBaseRef      = "base_ref"
	InputResultBranch = "result_branch"
	InputWorker       = "worker"
	InputBrief        = "brief"
	InputFindings     = "findings"
)

// inputs are the dispatch inputs in the order the workflow declares them;
// those with a default, or optional, may be left out.
var inputs = []struct {
	name, description, def string
	optional               bool
}{
	{InputRunID, "specstack's run id", "", false},
	{InputJobID, "the job's id in the run", "", false},
	{InputDispatchID, "unique to this dispatch: the run is found by its title", "", false},
	{InputRole, "SPECSTACK_ROLE: implementer, fixer, author, ...", "implementer", false},
	{InputTask, "SPECSTACK_TASK: the task number(s) or ticket", "", false},
	{InputBaseRef, "the branch holding the job's base, checked out", "", false},
	{InputResultBranch, "the branch the result is pushed to (under specstack/)", "", false},
	{InputWorker, "the worker this workflow was written for (a preset name or the command)", "", false},
	{InputBrief, "the brief (for an agent preset, its prompt), written to $RUNNER_TEMP", "", false},
	{InputFindings, "a fixer's findings (SPECSTACK_FINDINGS), written to $RUNNER_TEMP", "", true},
}

// Title is the display title (the workflow's run-name) of the run a
// dispatch starts: the dispatch id makes it unique, so that a run GitHub
// did not name in its answer can be found (ghapi.Dispatch.Title).
func Title(runID, jobID, dispatchID string) string {
	return "specstack " + runID + "/" + jobID + " " + dispatchID
}

// Branches are job's base and result branches: under specstack/, the
// only branches a runner pushes.
func Branches(job string) (base, result string) {
	return "specstack/" + job + "/base", "specstack/" + job + "/result"
}

// AnswerBranch is where the runner pushes job's answer, when its worker
// wrote one ($SPECSTACK_VERDICTS: a fixer's verdicts): a commit with no
// parent whose tree holds AnswerFile, beside the result branch.
func AnswerBranch(job string) string { return "specstack/" + job + "/answer" }

// AnswerFile is the answer's name in the answer branch's commit.
const AnswerFile = engine.RemoteAnswerFile

// DefaultPoll is the wait between two looks at a run: GitHub answers an
// unchanged run with 304 Not Modified, which costs no rate limit.
const DefaultPoll = 5 * time.Second

// Brief is what the runner hands job j's worker (the brief input): for
// an agent preset the prompt specstack would feed it here, else the
// brief file.
func Brief(j engine.Job) (string, error) {
	path := j.Brief
	if _, ok := j.Preset(); ok {
		// A runner starts a fresh agent session: the prompt is a first
		// session's (brief and findings inline), not a resumed one's.
		j.Session = j.Report + ".remote.session.json"
		os.Remove(j.Session)
		path = j.Spec().Stdin
	}
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the brief: %w", err)
	}
	return string(b), nil
}

// Findings is what the runner hands job j's worker as its findings (a
// fixer's): the findings file, "" when it has none.
func Findings(j engine.Job) (string, error) {
	if j.Findings == "" {
		return "", nil
	}
	b, err := os.ReadFile(j.Findings)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the findings: %w", err)
	}
	return string(b), nil
}

// DefaultRunsOn is the runner label when none is given.
const DefaultRunsOn = "ubuntu-latest"

// SetupTime is added to the worker's timeout for the job's own steps
// (checkout, installing the agent, pushing).
const SetupTime = 15 * time.Minute

// Options say what workflow to write.
type Options struct {
	// Worker is the worker setting: a preset's name or a shell command.
	Worker string
	// RunsOn are the runner labels (default DefaultRunsOn).
	RunsOn []string
	// Timeout is the worker's timeout ([worker] timeout); the job's
	// timeout-minutes is it plus setupMinutes. 0: GitHub's default.
	Timeout time.Duration
}

// WorkerError is a worker the workflow cannot run.
type WorkerError struct {
	Worker string // "" when none is configured
	Reason string
}

func (e *WorkerError) Error() string {
	if e.Worker == "" {
		return "no worker: " + e.Reason
	}
	return fmt.Sprintf("worker %q: %s", e.Worker, e.Reason)
}

// Secrets are the repository secrets the workflow reads for worker: the
// credential variables of its preset, none for a command.
func Secrets(worker string) []string {
	if p, ok := agent.Lookup(worker); ok {
		return slices.Clone(p.CredentialEnv)
	}
	return nil
}

// Render returns the workflow for o.
func Render(o Options) ([]byte, error) {
	worker := strings.TrimSpace(o.Worker)
	if worker == "" {
		return nil, &WorkerError{Reason: "pass --worker CMD (or a preset: " + strings.Join(agent.BuiltInNames(), ", ") + ") or set [worker] command in specstack.toml"}
	}
	if strings.Contains(worker, "${{") || strings.ContainsAny(worker, "\x00\r") {
		return nil, &WorkerError{Worker: worker, Reason: "holds ${{, a NUL or a carriage return, which a workflow cannot carry as written"}
	}
	runsOn := o.RunsOn
	if len(runsOn) == 0 {
		runsOn = []string{DefaultRunsOn}
	}
	for _, l := range runsOn {
		if strings.TrimSpace(l) == "" || strings.Contains(l, "${{") {
			return nil, &WorkerError{Worker: worker, Reason: fmt.Sprintf("runner label %q is empty or holds ${{", l)}
		}
	}
	p, isPreset := agent.Lookup(worker)
	var run string
	if isPreset {
		if p.Package == "" {
			return nil, &WorkerError{Worker: worker, Reason: "a runner installs only the built-in presets (" + strings.Join(agent.BuiltInNames(), ", ") + ") from npm; give the runner a command worker instead"}
		}
		cmd, err := agentCommand(p)
		if err != nil {
			return nil, &WorkerError{Worker: worker, Reason: err.Error()}
		}
		run = credentialCheck(p) + cmd
	} else {
		run = "sh -c \"$SPECSTACK_WORKER\" </dev/null || status=$?\n"
	}
	script := scriptHead + run + scriptTail

	var b strings.Builder
	b.WriteString(header)
	fmt.Fprintf(&b, "name: specstack worker\nrun-name: %s\n", yamlString(Title("${{ inputs."+InputRunID+" }}", "${{ inputs."+InputJobID+" }}", "${{ inputs."+InputDispatchID+" }}")))
	b.WriteString("on:\n  workflow_dispatch:\n    inputs:\n")
	for _, in := range inputs {
		fmt.Fprintf(&b, "      %s:\n        description: %s\n", in.name, yamlString(in.description))
		if in.def != "" {
			fmt.Fprintf(&b, "        required: false\n        default: %s\n", yamlString(in.def))
		} else if in.optional {
			b.WriteString("        required: false\n        default: \"\"\n")
		} else {
			b.WriteString("        required: true\n")
		}
		b.WriteString("        type: string\n")
	}
	b.WriteString("permissions:\n  contents: write\njobs:\n  worker:\n")
	if len(runsOn) == 1 {
		fmt.Fprintf(&b, "    runs-on: %s\n", yamlString(runsOn[0]))
	} else {
		b.WriteString("    runs-on:\n")
		for _, l := range runsOn {
			fmt.Fprintf(&b, "      - %s\n", yamlString(l))
		}
	}
	if o.Timeout > 0 {
		fmt.Fprintf(&b, "    timeout-minutes: %d\n", int(math.Ceil((o.Timeout + SetupTime).Minutes())))
	}
	b.WriteString("    steps:\n")
	b.WriteString("      - name: Check out the job's base\n        uses: actions/checkout@v4\n        with:\n")
	fmt.Fprintf(&b, "          ref: ${{ inputs.%s }}\n", InputBaseRef)
	if isPreset {
		b.WriteString("      - name: Set up Node.js\n        uses: actions/setup-node@v4\n        with:\n          node-version: \"22\"\n")
		pkg := p.Package + "@" + p.Version
		fmt.Fprintf(&b, "      - name: %s\n        run: npm install --global %s\n", yamlString("Install "+pkg), xec.ShellWord(pkg))
	}
	b.WriteString("      - name: Run the worker\n        id: worker\n        env:\n")
	env := [][2]string{
		{"SPECSTACK_WORKER", yamlString(worker)},
		{"SPECSTACK_WORKER_ASKED", "${{ inputs." + InputWorker + " }}"},
		{"SPECSTACK_BRIEF_TEXT", "${{ inputs." + InputBrief + " }}"},
		{"SPECSTACK_FINDINGS_TEXT", "${{ inputs." + InputFindings + " }}"},
		{"SPECSTACK_RUN_ID", "${{ inputs." + InputRunID + " }}"},
		{"SPECSTACK_JOB_ID", "${{ inputs." + InputJobID + " }}"},
		{"SPECSTACK_ROLE", "${{ inputs." + InputRole + " }}"},
		{"SPECSTACK_TASK", "${{ inputs." + InputTask + " }}"},
		{"SPECSTACK_RESULT_BRANCH", "${{ inputs." + InputResultBranch + " }}"},
	}
	if isPreset {
		for _, kv := range p.Env {
			k, v, _ := strings.Cut(kv, "=")
			env = append(env, [2]string{k, yamlString(v)})
		}
		for _, s := range p.CredentialEnv {
			env = append(env, [2]string{s, "${{ secrets." + s + " }}"})
		}
	}
	for _, kv := range env {
		fmt.Fprintf(&b, "          %s: %s\n", kv[0], kv[1])
	}
	b.WriteString("        run: |\n")
	for _, line := range strings.Split(strings.TrimSuffix(script, "\n"), "\n") {
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("          " + line + "\n")
	}
	return []byte(b.String()), nil
}

const header = `# Written by gh specstack workflow init (jj kaisen and jj openspec users run
# the same command): runs one specstack worker job on a GitHub Actions runner.
# specstack dispatches it with the job's inputs; nothing here needs editing.
# After changing the worker, run "gh specstack workflow init --force" again.
`

// scriptHead checks the run's inputs and sets up the SPECSTACK_*
// protocol; the worker's part follows, then scriptTail.
const scriptHead = `if [ "$SPECSTACK_WORKER_ASKED" != "$SPECSTACK_WORKER" ]; then
  echo "specstack: this workflow runs the worker '$SPECSTACK_WORKER', the run asked for '$SPECSTACK_WORKER_ASKED': run gh specstack workflow init --force, then commit and push the workflow" >&2
  exit 2
fi
case "$SPECSTACK_RESULT_BRANCH" in
  specstack/*) ;;
  *)
    echo "specstack: result branch '$SPECSTACK_RESULT_BRANCH' is not under specstack/: refused" >&2
    exit 2
    ;;
esac
spec="$RUNNER_TEMP/specstack"
mkdir -p "$spec/artifacts"
printf '%s' "$SPECSTACK_BRIEF_TEXT" > "$spec/brief.md"
SPECSTACK_FINDINGS=""
if [ -n "$SPECSTACK_FINDINGS_TEXT" ]; then
  printf '%s' "$SPECSTACK_FINDINGS_TEXT" > "$spec/findings.md"
  SPECSTACK_FINDINGS="$spec/findings.md"
fi
unset SPECSTACK_BRIEF_TEXT SPECSTACK_FINDINGS_TEXT SPECSTACK_WORKER_ASKED
export SPECSTACK_WORKSPACE="$GITHUB_WORKSPACE"
export SPECSTACK_BRIEF="$spec/brief.md"
export SPECSTACK_REPORT="$spec/report.md"
export SPECSTACK_FINDINGS
export SPECSTACK_PIDFILE="$spec/worker.pid"
export SPECSTACK_VERDICTS="$spec/answer.json"
export SPECSTACK_ARTIFACTS="$spec/artifacts"
echo "$$" > "$SPECSTACK_PIDFILE"
status=0
`

// scriptTail commits the work tree with the report as the message and
// pushes it to the result branch, with the worker's answer, when it
// wrote one, on the answer branch beside it (AnswerBranch), then ends
// with the worker's status.
const scriptTail = `git add -A
{
  printf 'specstack %s job %s\n\n' "$SPECSTACK_RUN_ID" "$SPECSTACK_JOB_ID"
  if [ -f "$SPECSTACK_REPORT" ]; then cat "$SPECSTACK_REPORT"; fi
} > "$spec/message"
bot() {
  git -c user.name='github-actions[bot]' -c user.email='41898282+github-actions[bot]@users.noreply.github.com' "$@"
}
bot commit -q --no-verify --allow-empty -F "$spec/message"
set -- "HEAD:refs/heads/$SPECSTACK_RESULT_BRANCH"
if [ -s "$SPECSTACK_VERDICTS" ]; then
  blob=$(git hash-object -w "$SPECSTACK_VERDICTS")
  tree=$(printf '100644 blob %s\t` + AnswerFile + `\n' "$blob" | git mktree)
  answer=$(bot commit-tree "$tree" -m "specstack $SPECSTACK_RUN_ID job $SPECSTACK_JOB_ID: answer")
  set -- "$@" "$answer:refs/heads/${SPECSTACK_RESULT_BRANCH%/result}/answer"
fi
git push -q --atomic origin "$@"
exit "$status"
`

// credentialCheck refuses to start an agent without credentials, and
// unsets the credential variables whose secret is not set (Actions
// renders a missing secret as "").
func credentialCheck(p agent.Preset) string {
	if len(p.CredentialEnv) == 0 {
		return ""
	}
	names := strings.Join(p.CredentialEnv, " ")
	return `creds=0
for v in ` + names + `; do
  if [ -n "${!v}" ]; then creds=1; else unset "$v"; fi
done
if [ "$creds" = 0 ]; then
  echo "specstack: ` + p.Name + ` needs one of the repository secrets ` + strings.Join(p.CredentialEnv, ", ") + ` (Settings, Secrets and variables, Actions)" >&2
  exit 2
fi
`
}

// agentCommand runs the preset as the local executor starts a first
// session (agent.Preset.Arguments) with the brief on stdin, and turns
// its final message into the report.
func agentCommand(p agent.Preset) (string, error) {
	var words []string
	for _, a := range p.Arguments("implementer", false, false, nil) {
		switch a {
		case agent.PlaceWorkspace:
			words = append(words, `"$SPECSTACK_WORKSPACE"`)
		case agent.PlaceLastMessage:
			words = append(words, `"$spec/last-message.md"`)
		case agent.PlaceSession, agent.PlaceSchema, agent.PlaceSchemaFile, agent.PlacePromptFile:
			return "", fmt.Errorf("its arguments hold %s, which a runner does not provide", a)
		default:
			if strings.Contains(a, "${{") {
				return "", fmt.Errorf("argument %q holds ${{", a)
			}
			words = append(words, xec.ShellWord(a))
		}
	}
	cmd := strings.Join(words, " ") + ` < "$SPECSTACK_BRIEF"`
	switch p.Output {
	case agent.OutputClaude:
		return cmd + ` > "$spec/agent.out" || status=$?
jq -r '.result // empty' "$spec/agent.out" > "$SPECSTACK_REPORT" || true
`, nil
	case agent.OutputCodex:
		return cmd + ` > "$spec/agent.out" || status=$?
if [ -f "$spec/last-message.md" ]; then cp "$spec/last-message.md" "$SPECSTACK_REPORT"; fi
`, nil
	}
	return cmd + ` > "$SPECSTACK_REPORT" || status=$?
`, nil
}

// yamlString is s as a YAML double-quoted scalar (JSON's string syntax,
// which YAML reads as written).
func yamlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
