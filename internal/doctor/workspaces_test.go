package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspacesSaysWhatSetIt: doctor's workspaces line names the setting
// the folder comes from ($SPECSTACK_WORKSPACES, which wins, or [kaisen]
// workspaces-dir and the file holding it), or says it is the default.
func TestWorkspacesSaysWhatSetIt(t *testing.T) {
	gitAlone(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	userFile := filepath.Join(home, "specstack", "config.toml")
	dir := gitRepo(t, filepath.Join(t.TempDir(), "app"))
	repoFile := filepath.Join(dir, "specstack.toml")

	for _, tc := range []struct {
		name, env, user, repo string
		want                  string // the line, "app-HASH" for the folder's name
	}{
		{"default", "", "", "",
			"workspaces: " + tmp + "/jj-workspaces/app-HASH (the default; set SPECSTACK_WORKSPACES or [kaisen] workspaces-dir to move it)"},
		{"repository config", "", "", "/srv/ws",
			"workspaces: /srv/ws/app-HASH (set by [kaisen] workspaces-dir in " + repoFile + ")"},
		{"user config", "", "/home/ws", "",
			"workspaces: /home/ws/app-HASH (set by [kaisen] workspaces-dir in " + userFile + ")"},
		{"repository config over the user's", "", "/home/ws", "/srv/ws",
			"workspaces: /srv/ws/app-HASH (set by [kaisen] workspaces-dir in " + repoFile + ")"},
		{"environment over config", "/var/ws", "/home/ws", "/srv/ws",
			"workspaces: /var/ws/app-HASH (set by $SPECSTACK_WORKSPACES)"},
	} {
		t.Setenv("SPECSTACK_WORKSPACES", tc.env)
		writeConfig(t, userFile, tc.user)
		writeConfig(t, repoFile, tc.repo)
		rep := Gather(t.Context(), "jj-openspec", "test", dir)
		hash := strings.TrimPrefix(filepath.Base(rep.WorkspacesDir), "app-")
		want := strings.Replace(tc.want, "app-HASH", "app-"+hash, 1)
		if text := rep.Text(); !strings.Contains(text, "\n"+want+"\n") {
			t.Errorf("%s: want the line %q in\n%s", tc.name, want, text)
		}
	}
}

// writeConfig writes a configuration file setting [kaisen]
// workspaces-dir to dir, or removes it when dir is "".
func writeConfig(t *testing.T, path, dir string) {
	t.Helper()
	if dir == "" {
		os.Remove(path)
		return
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("[kaisen]\nworkspaces-dir = \""+dir+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
