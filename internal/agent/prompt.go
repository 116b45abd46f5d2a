package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/regfile"
)

// Roles whose answer is a JSON document rather than a report.
const (
	RoleReviewer = "reviewer"
	RoleFixer    = "fixer"
)

// maxInput bounds each file a prompt includes (a brief, a diff, findings):
// an agent's context is finite, and what is cut is said.
const maxInput = 1 << 20

// Inputs are the files a job's prompt is made from; empty paths are none.
type Inputs struct {
	Brief, Findings, Diff, PriorWaves, Report string
}

const rules = `Rules:
- Your workspace is your current directory. Edit files only inside it.
- Do not commit, push, or rewrite history (no git commit/push/reset, no jj
  commit/squash/abandon/op/workspace/git push): specstack records what you
  changed in the workspace and integrates it after its own checks.
- Run the tests the brief names when you can.
`

const statusRule = `When you are finished, end your final message with a short summary of what
you did, then one last line that is exactly one of:
Status: DONE
Status: DONE_WITH_CONCERNS   (your concerns above it)
Status: BLOCKED              (what stops you above it)
Status: NEEDS_CONTEXT        (what you need above it)
`

// fileVars are the protocol's files a worker is asked to write.
var fileVars = []string{"SPECSTACK_REPORT", "SPECSTACK_FINDINGS", "SPECSTACK_VERDICTS", "SPECSTACK_FINISHED"}

// fileRules says, for each file the brief may ask for, where it goes: a
// file inside the workspace by its path there; one outside (specstack's
// own folder, which the agent may not be allowed to write) is given in
// the answer instead, and specstack writes it.
func fileRules(dir string, env []string) string {
	var inside, outside []string
	for _, name := range fileVars {
		v := lookup(env, name)
		if v == "" {
			continue
		}
		if rel, err := filepath.Rel(dir, v); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			inside = append(inside, fmt.Sprintf("- $%s is %s in your workspace: write it there.\n", name, filepath.ToSlash(rel)))
		} else {
			outside = append(outside, "$"+name)
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(inside, ""))
	if len(outside) > 0 {
		fmt.Fprintf(&b, "- Where the brief asks you to write %s, do not: give its content in your\n  answer, and specstack writes it.\n", strings.Join(outside, " or "))
	}
	return b.String()
}

func lookup(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val // the last one wins, as in a process's environment
		}
	}
	return v
}

// Prompt is the job's first prompt: what the agent is, the
// rules, and the job's files inline (the agent may not be allowed to read
// specstack's folder). A job with a schema answers in it (a reviewer's
// findings, a fixer's verdicts); any other ends with a status line.
func (j Job) Prompt() (string, error) {
	role, in, schema := j.Role, j.Inputs, j.Schema
	var b strings.Builder
	fmt.Fprintf(&b, "You are the %s working for specstack, which runs coding agents in separate workspaces.\n\n", role)
	if role == RoleReviewer {
		b.WriteString("Review the work described below: judge the diff against the briefs. Do not edit any file.\n\n")
	}
	b.WriteString(rules + fileRules(j.Dir, j.Env) + "\n")
	answerRule(&b, schema)
	if err := include(&b, "The brief", in.Brief); err != nil {
		return "", err
	}
	if err := include(&b, "What earlier waves merged", in.PriorWaves); err != nil {
		return "", err
	}
	if role == RoleFixer {
		if err := include(&b, "Your report so far", in.Report); err != nil {
			return "", err
		}
		if err := include(&b, "The reviewer's findings to fix (JSON)", in.Findings); err != nil {
			return "", err
		}
	}
	if err := include(&b, "The diff to review", in.Diff); err != nil {
		return "", err
	}
	return b.String(), nil
}

// FixPrompt continues an implementer's own session with the findings to
// fix.
func (j Job) FixPrompt() (string, error) {
	in, schema := j.Inputs, j.Schema
	var b strings.Builder
	b.WriteString("A reviewer found problems in your work. Fix them in the same workspace, under the same rules.\n\n")
	answerRule(&b, schema)
	if err := include(&b, "What to do", in.Brief); err != nil {
		return "", err
	}
	if err := include(&b, "The reviewer's findings to fix (JSON)", in.Findings); err != nil {
		return "", err
	}
	return b.String(), nil
}

func include(b *strings.Builder, title, path string) error {
	if path == "" {
		return nil
	}
	data, err := regfile.ReadNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s for the agent's prompt: %w", path, err)
	}
	cut := ""
	if len(data) > maxInput {
		data, cut = data[:maxInput], fmt.Sprintf("\n[cut at %d bytes of %s]\n", maxInput, path)
	}
	fmt.Fprintf(b, "## %s\n\n<<<\n%s\n>>>%s\n\n", title, strings.TrimRight(string(data), "\n"), cut)
	return nil
}

// answerRule says how the job ends: a JSON document in the schema, or a
// report with its status line.
func answerRule(b *strings.Builder, schema *Schema) {
	if schema != nil {
		fmt.Fprintf(b, "Your final answer is only a JSON document that follows this JSON schema (the brief says what each field means):\n%s\n\n", schema.JSON)
		return
	}
	b.WriteString(statusRule + "\n")
}
