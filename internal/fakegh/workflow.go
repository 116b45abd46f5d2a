package fakegh

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/lazyregexp"
)

// workflow is what the fake reads of a workflow file: its dispatch
// inputs, its run-name, and the worker step its runner runs.
type workflow struct {
	Name    string                 `yaml:"name"`
	RunName string                 `yaml:"run-name"`
	On      yaml.Node              `yaml:"on"`
	Env     map[string]string      `yaml:"env"`
	Jobs    map[string]workflowJob `yaml:"jobs"`
}

type workflowJob struct {
	Env   map[string]string `yaml:"env"`
	Steps []workflowStep    `yaml:"steps"`
}

type workflowStep struct {
	ID   string            `yaml:"id"`
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
}

// dispatchInput is one declared input of on.workflow_dispatch.
type dispatchInput struct {
	Required bool   `yaml:"required"`
	Default  string `yaml:"default"`
}

// WorkerStepID is the id of the step the fake's runner runs.
const WorkerStepID = "worker"

// workflowsDir is where GitHub reads workflow files.
const workflowsDir = ".github/workflows/"

// readWorkflow reads workflow file name at ref of the repository's
// origin; ok is false when there is no such file.
func readWorkflow(ctx context.Context, r *Repo, ref, name string) (wf workflow, ok bool, err error) {
	if r.Origin == "" || strings.Contains(name, "/") {
		return wf, false, nil
	}
	blobs, err := (&gitx.Repo{Dir: r.Origin}).ReadFiles(ctx, []string{ref + ":" + workflowsDir + name})
	if err != nil {
		return wf, false, err
	}
	if len(blobs) != 1 || !blobs[0].Exists {
		return wf, false, nil
	}
	if err := yaml.Unmarshal(blobs[0].Content, &wf); err != nil {
		return wf, false, fmt.Errorf("%s%s at %s: %w", workflowsDir, name, ref, err)
	}
	return wf, true, nil
}

// dispatchInputs returns the workflow_dispatch trigger's inputs; ok is
// false when the workflow has no such trigger.
func (wf workflow) dispatchInputs() (map[string]dispatchInput, bool) {
	on := wf.On
	switch on.Kind {
	case yaml.ScalarNode:
		return nil, on.Value == "workflow_dispatch"
	case yaml.SequenceNode:
		for _, n := range on.Content {
			if n.Value == "workflow_dispatch" {
				return nil, true
			}
		}
		return nil, false
	case yaml.MappingNode:
		var m map[string]struct {
			Inputs map[string]dispatchInput `yaml:"inputs"`
		}
		if err := on.Decode(&m); err != nil {
			return nil, false
		}
		d, ok := m["workflow_dispatch"]
		return d.Inputs, ok
	}
	return nil, false
}

// checkInputs refuses inputs the workflow does not declare and declared
// required inputs that are missing, as GitHub does; it returns the
// inputs with the declared defaults filled in.
func (wf workflow) checkInputs(given map[string]string) (map[string]string, string) {
	declared, _ := wf.dispatchInputs()
	var unexpected []string
	for k := range given {
		if _, ok := declared[k]; !ok {
			unexpected = append(unexpected, fmt.Sprintf("%q", k))
		}
	}
	if len(unexpected) > 0 {
		slices.Sort(unexpected)
		return nil, "Unexpected inputs provided: [" + strings.Join(unexpected, ", ") + "]"
	}
	res := maps.Clone(given)
	if res == nil {
		res = map[string]string{}
	}
	for _, k := range slices.Sorted(maps.Keys(declared)) {
		in := declared[k]
		if _, ok := res[k]; ok {
			continue
		}
		if in.Required && in.Default == "" {
			return nil, fmt.Sprintf("Required input '%s' not provided", k)
		}
		res[k] = in.Default
	}
	return res, ""
}

// workerStep returns the job and step with id WorkerStepID.
func (wf workflow) workerStep() (workflowJob, workflowStep, bool) {
	for _, name := range slices.Sorted(maps.Keys(wf.Jobs)) {
		j := wf.Jobs[name]
		for _, s := range j.Steps {
			if s.ID == WorkerStepID {
				return j, s, true
			}
		}
	}
	return workflowJob{}, workflowStep{}, false
}

var expression = lazyregexp.New(`\$\{\{\s*([A-Za-z_]+)\.([A-Za-z0-9_-]+)\s*\}\}`)

// expand replaces ${{ inputs.X }}, ${{ secrets.X }} and ${{ github.X }}
// in s, as Actions renders an expression in an env value or the
// run-name; anything else is left as written.
func expand(s string, contexts map[string]map[string]string) string {
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		sub := expression.FindStringSubmatch(m)
		ctx, ok := contexts[sub[1]]
		if !ok {
			return m
		}
		return ctx[sub[2]] // an unknown name renders as "", as in Actions
	})
}
