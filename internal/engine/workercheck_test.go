package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

func TestCheckProgram(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "agent.sh"), []byte("true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENT_DIR", root)
	tests := []struct {
		command string
		missing string // "" when accepted; else a text the error names
	}{
		{command: "true"},
		{command: "sh ./agent.sh --fast"},
		{command: "sh agent.sh"},
		{command: "sh $AGENT_DIR/agent.sh"},
		{command: "sh ${AGENT_DIR}/agent.sh"},
		{command: root + "/agent.sh"},
		{command: "./agent.sh"},
		{command: "/no/such/agent --go", missing: "/no/such/agent does not exist"},
		{command: "./missing.sh", missing: filepath.Join(root, "missing.sh") + " does not exist"},
		{command: "no-such-agent-27 -p", missing: `program "no-such-agent-27" is not on PATH`},
		{command: "sh $AGENT_DIR/missing.sh", missing: "script " + filepath.Join(root, "missing.sh") + " does not exist"},
		{command: "bash missing.sh", missing: "missing.sh does not exist"},
		{command: "sh " + root, missing: "is a directory"},
		// left to sh: what the check cannot read as sh would
		{command: "sh -c 'whatever'"},
		{command: "sh $SPECSTACK_BRIEF"},
		{command: "sh $UNSET_27_VAR/x.sh"},
		{command: "FOO=1 no-such-agent-27"},
		{command: "'/no/such/agent'"},
		{command: "cd sub && ./x"},
		{command: "$(which agent)"},
	}
	for _, tt := range tests {
		err := checkProgram(tt.command, root, "worker command", "--worker")
		if tt.missing == "" {
			if err != nil {
				t.Errorf("checkProgram(%q) = %v, want accepted", tt.command, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("checkProgram(%q) accepted, want missing %q", tt.command, tt.missing)
			continue
		}
		if got := exitcode.Of(err); got != exitcode.Missing {
			t.Errorf("checkProgram(%q): exit %d, want %d (missing tool)", tt.command, got, exitcode.Missing)
		}
		if msg := err.Error(); !strings.Contains(msg, tt.missing) || !strings.Contains(msg, "--worker") {
			t.Errorf("checkProgram(%q) = %q, want it to name %q and --worker", tt.command, msg, tt.missing)
		}
	}
}
