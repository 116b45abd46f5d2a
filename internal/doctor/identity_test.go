package doctor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// TestJJIdentity: doctor warns, naming the exact commands, when jj has no
// user.name or user.email, and stops warning once `jj config set --user`
// set them; it reports where the repository's workspaces go.
func TestJJIdentity(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	for _, k := range []string{"JJ_USER", "JJ_EMAIL"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	home := os.Getenv("HOME")
	jjConfig := filepath.Join(home, "jj-user.toml")
	t.Setenv("JJ_CONFIG", jjConfig)
	t.Setenv(config.WorkspacesEnv, filepath.Join(home, "ws"))
	dir := filepath.Join(t.TempDir(), "repo")
	jj := func(args ...string) {
		t.Helper()
		if _, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: args, Dir: filepath.Dir(dir)}); err != nil {
			t.Fatalf("jj %v: %v", args, err)
		}
	}
	jj("git", "init", "--no-colocate", dir)

	rep := doctor.Gather(t.Context(), "jj-kaisen", "test", dir)
	text := rep.Text()
	for _, want := range []string{
		"jj user: (name unset) <email unset>\n",
		"warning: jj user.name and user.email not configured",
		"`jj config set --user user.name \"Your Name\"`",
		"`jj config set --user user.email \"you@example.com\"`",
		"workspaces: " + filepath.Join(home, "ws", "repo-"),
		"\nok\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("without an identity, doctor lacks %q:\n%s", want, text)
		}
	}

	jj("config", "set", "--user", "user.name", "Ada Lovelace")
	jj("config", "set", "--user", "user.email", "ada@example.com")
	rep = doctor.Gather(t.Context(), "jj-kaisen", "test", dir)
	if len(rep.Warnings) != 0 || rep.JJUser == nil || rep.JJUser.Name != "Ada Lovelace" || rep.JJUser.Email != "ada@example.com" {
		t.Errorf("after jj config set: user %+v, warnings %q", rep.JJUser, rep.Warnings)
	}
	if !strings.Contains(rep.Text(), "jj user: Ada Lovelace <ada@example.com>\n") {
		t.Errorf("text:\n%s", rep.Text())
	}
}
