package jjx

import (
	"context"
	"strings"
)

// MergeTool is an external merge tool defined for a single jj call through
// --config, so nothing is written to the user's configuration.
type MergeTool struct {
	Name    string   // the name under merge-tools.<name>
	Program string   // absolute path of the program
	Args    []string // merge-args: $base $left $right $output $marker_length $path are substituted
	// MarkerStyle is the conflict-marker-style the tool reads in $output;
	// "" means MarkerStyle.
	MarkerStyle string
}

// configArgs returns the --config flags that define t for one call. The
// tool edits the conflict markers jj writes into $output, so a partial
// resolution leaves the remaining hunks in conflict.
func (t MergeTool) configArgs() []string {
	style := t.MarkerStyle
	if style == "" {
		style = MarkerStyle
	}
	key := "merge-tools." + t.Name + "."
	return []string{
		"--config", key + "program=" + tomlString(t.Program),
		"--config", key + "merge-args=" + tomlArray(t.Args),
		"--config", key + "merge-tool-edits-conflict-markers=true",
		"--config", key + "conflict-marker-style=" + tomlString(style),
	}
}

// ResolveWithTool runs `jj resolve -r rev --tool t.Name` on path, with t
// defined for this call only. jj hands the tool two-sided conflicts only.
func (r *Repo) ResolveWithTool(ctx context.Context, rev, path string, t MergeTool) error {
	args := append([]string{"resolve", "-r", rev, "--tool", t.Name}, t.configArgs()...)
	args = append(args, "--", rootFile(path))
	_, err := r.call(ctx, args...)
	return err
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string { return quoteWith(s, `\u%04x`) }

func tomlArray(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
