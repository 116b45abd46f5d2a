package osapply

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
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
