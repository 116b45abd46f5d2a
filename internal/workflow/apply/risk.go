package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/spec"
)

// RiskFlags are the flags a proposal.md may carry on a "Risk flags:" line
// (the parallel-dev reference's routing).
var RiskFlags = []string{"FINANCE", "AUTH", "MIGRATION", "STATE_MACHINE", "EXTERNAL_API", "ENV_OPS", "PERSIST"}

// ReadRisk returns the risk flags of the change's proposal.md: the
// comma- or space-separated words after "Risk flags:" (markdown emphasis
// and list markers around it allowed); none for "none" or no line. An
// unknown flag is exit 6, naming the known ones.
func ReadRisk(r spec.Root, change string) ([]string, error) {
	data, err := r.ReadFile(filepath.Join(r.ChangeDir(change), "proposal.md"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the risk flags of change %s: %w", change, err)
	}
	return ParseRisk(string(data))
}

// ParseRisk reads the "Risk flags:" line of a proposal.
func ParseRisk(text string) ([]string, error) {
	for _, line := range strings.Split(text, "\n") {
		l := strings.ReplaceAll(strings.TrimLeft(strings.TrimSpace(line), "-*> "), "*", "")
		rest, ok := cutFold(l, "risk flags:")
		if !ok {
			continue
		}
		var flags []string
		for _, f := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '`' }) {
			f = strings.ToUpper(strings.TrimSpace(f))
			if f == "" || f == "NONE" {
				continue
			}
			if !slices.Contains(RiskFlags, f) {
				return nil, exitcode.New(exitcode.Invalid, "proposal.md: unknown risk flag %q on the \"Risk flags:\" line (known: %s, or none)", f, strings.Join(RiskFlags, ", "))
			}
			if !slices.Contains(flags, f) {
				flags = append(flags, f)
			}
		}
		return flags, nil
	}
	return nil, nil
}

func cutFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return "", false
	}
	return s[len(prefix):], true
}

// Routing levels (the parallel-dev reference's routing by size and risk).
const (
	// LevelStandard: no risk flag, within [openspec] risk-max-files and
	// risk-max-modules.
	LevelStandard = "standard"
	// LevelRisk: a risk flag, or over a size limit. The reference's
	// risk escalation puts such a change at a minimum level (its C1b)
	// below which no lightweight path is allowed. apply's lightweight
	// paths are an unverified archive, an unreviewed one, and a small
	// group handed to a worker of its own with a brief scoped to a few
	// tasks (less context, checked only once integrated). So the risk
	// level refuses --no-verify, requires a reviewer, and fans out only
	// groups of at least RiskMinGroupTasks unchecked tasks: "never fans
	// out below the configured minimum" is that size gate, which a risky
	// change can raise but never lower below min-group-tasks.
	LevelRisk = "risk"
)

// DefaultRiskMinGroupTasks is the size gate of a risky change's fan-out
// when [openspec] risk-min-group-tasks is unset: one more than the
// default min-group-tasks.
const DefaultRiskMinGroupTasks = 3

// Route is the level a change is applied at, and why.
type Route struct {
	Level string `toml:"level" json:"level"`
	// Flags are the proposal's risk flags, with "SIZE (…)" when the
	// change names more files, or "MODULES (…)" more folders, than the
	// limits.
	Flags []string `toml:"flags,omitempty" json:"flags,omitempty"`
	// MinGroupTasks is the size gate fan-out was decided with.
	MinGroupTasks int      `toml:"min_group_tasks" json:"min_group_tasks"`
	Reasons       []string `toml:"reasons" json:"reasons"`
}

// RouteOptions are the configured gates; 0 takes the default (no limit
// for the maxima).
type RouteOptions struct {
	MinGroupTasks     int // [openspec] min-group-tasks (2)
	RiskMinGroupTasks int // [openspec] risk-min-group-tasks (3)
	MaxFiles          int // [openspec] risk-max-files
	// MaxModules is [openspec] risk-max-modules: the folders the named
	// files are in (a glob's folder is its part before the first
	// wildcard). The reference's routing counts modules besides files
	// ("cross-module" is its C1b); a folder is the unit apply can read
	// from tasks.md without knowing the project's build.
	MaxModules int
}

// RouteChange routes change by its risk flags and the files and folders
// its tasks name (d is its distribution decided with the standard size
// gate).
func RouteChange(r spec.Root, change string, d Decision, o RouteOptions) (Route, error) {
	flags, err := ReadRisk(r, change)
	if err != nil {
		return Route{}, err
	}
	minGroup := o.MinGroupTasks
	if minGroup <= 0 {
		minGroup = 2
	}
	rt := Route{Level: LevelStandard, MinGroupTasks: minGroup}
	for _, f := range flags {
		rt.Flags = append(rt.Flags, f)
		rt.Reasons = append(rt.Reasons, "proposal.md flags "+f)
	}
	files, modules := areaSize(d), moduleCount(d)
	if o.MaxFiles > 0 && files > o.MaxFiles {
		why := fmt.Sprintf("%d files named, over [openspec] risk-max-files %d", files, o.MaxFiles)
		rt.Flags = append(rt.Flags, "SIZE ("+why+")")
		rt.Reasons = append(rt.Reasons, why)
	}
	if o.MaxModules > 0 && modules > o.MaxModules {
		why := fmt.Sprintf("%d folders named, over [openspec] risk-max-modules %d", modules, o.MaxModules)
		rt.Flags = append(rt.Flags, "MODULES ("+why+")")
		rt.Reasons = append(rt.Reasons, why)
	}
	if len(rt.Flags) == 0 {
		var lims []string
		if o.MaxFiles > 0 {
			lims = append(lims, fmt.Sprintf("risk-max-files %d", o.MaxFiles))
		}
		if o.MaxModules > 0 {
			lims = append(lims, fmt.Sprintf("risk-max-modules %d", o.MaxModules))
		}
		lim := "no size limit"
		if len(lims) > 0 {
			lim = "within " + strings.Join(lims, " and ")
		}
		rt.Reasons = []string{fmt.Sprintf("no risk flag, %s in %s named (%s)", plural.Count(files, "file", "files"), plural.Count(modules, "folder", "folders"), lim)}
		return rt, nil
	}
	rt.Level = LevelRisk
	riskMin := o.RiskMinGroupTasks
	if riskMin <= 0 {
		riskMin = DefaultRiskMinGroupTasks
	}
	rt.MinGroupTasks = max(riskMin, minGroup)
	rt.Reasons = append(rt.Reasons, fmt.Sprintf("verify and a reviewer required; fan-out only of groups with at least %s", plural.Count(rt.MinGroupTasks, "unchecked task", "unchecked tasks")))
	return rt, nil
}

// moduleCount counts the distinct folders of the paths and globs the
// change's task groups name ("." for a file at the root).
func moduleCount(d Decision) int {
	seen := map[string]bool{}
	for _, g := range d.Verdict.Groups {
		for _, a := range g.Area {
			if i := strings.IndexAny(a, "*?["); i >= 0 {
				a = a[:i] + "x"
			}
			seen[path.Dir(a)] = true
		}
	}
	return len(seen)
}
