package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLoadLayers(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	root := t.TempDir()
	user := filepath.Join(xdg, "specstack", "config.toml")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.WriteFile(user, []byte("[worker]\ncommand = \"agent run\"\ntest = \"make test\"\n"), 0o644)
	os.WriteFile(filepath.Join(root, FileName), []byte("[worker]\ntest = \"go test ./...\"\n[kaisen]\nmax-parallel = 3\n"), 0o644)

	cfg, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Worker.Command != "agent run" || cfg.Worker.Test != "go test ./..." || cfg.Kaisen.MaxParallel != 3 {
		t.Errorf("merged config %+v", cfg)
	}
	if want := []string{user, filepath.Join(root, FileName)}; !slices.Equal(cfg.Files, want) {
		t.Errorf("files %v, want %v", cfg.Files, want)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tc := range []struct{ body, want string }{
		{"[worker\n", "specstack.toml"},
		{"[worker]\ncomand = \"x\"\n", `unknown key "worker.comand"`},
		// the installed man page, not the README, lists the keys
		{"[worker]\ncomand = \"x\"\n", "known keys of [worker]: command, reviewer, test, timeout"},
		{"[worker]\ncomand = \"x\"\n", "CONFIGURATION in man jj-kaisen"},
		{"[kaisn]\nx = 1\n", "known sections: [worker], [kaisen], [review], [openspec], [stack], [github]"},
	} {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, FileName), []byte(tc.body), 0o644)
		_, err := Load(root)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q) error %v, want it to mention %q", tc.body, err, tc.want)
		}
	}
	cfg, err := Load(t.TempDir())
	if err != nil || len(cfg.Files) != 0 {
		t.Errorf("no files: %+v %v", cfg, err)
	}
}

// TestKeysDocumented keeps Keys (the man pages' CONFIGURATION) equal to
// the keys Load accepts.
func TestKeysDocumented(t *testing.T) {
	var accepted []string
	ct := reflect.TypeOf(Config{})
	for i := 0; i < ct.NumField(); i++ {
		sec := ct.Field(i).Tag.Get("toml")
		if sec == "" || sec == "-" {
			continue
		}
		st := ct.Field(i).Type
		for j := 0; j < st.NumField(); j++ {
			accepted = append(accepted, sec+"."+st.Field(j).Tag.Get("toml"))
		}
	}
	var documented []string
	for _, k := range Keys {
		documented = append(documented, k.Section+"."+k.Name)
		if k.Example == "" || k.Meaning == "" || k.Binary == "" {
			t.Errorf("key %s.%s: example, meaning and binary are required", k.Section, k.Name)
		}
	}
	if !slices.Equal(accepted, documented) {
		t.Errorf("config.Keys documents %v, Load accepts %v", documented, accepted)
	}
}

func TestGitHubTimeout(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tc := range []struct{ body, want, err string }{
		{"[github]\ntimeout = \"90s\"\n", "90s", ""},
		{"[github]\ntimeout = \"soon\"\n", "", `[github] timeout = "soon": not a Go duration`},
		{"[github]\ntimeout = \"0s\"\n", "", `[github] timeout = "0s": must be positive`},
		{"[github]\ntimeout = \"\"\n", "", `[github] timeout = "": not a Go duration`},
	} {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, FileName), []byte(tc.body), 0o644)
		cfg, err := Load(root)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), FileName) {
				t.Errorf("Load(%q) error %v, want it to name the file and say %q", tc.body, err, tc.err)
			}
		case err != nil || cfg.GitHub.Timeout != tc.want:
			t.Errorf("Load(%q) = %+v, %v; want timeout %q", tc.body, cfg, err, tc.want)
		}
	}
}

// TestWorkspacesDir: SPECSTACK_WORKSPACES wins over [kaisen]
// workspaces-dir, which wins over $TMPDIR/jj-workspaces; a relative
// workspaces-dir is refused.
func TestWorkspacesDir(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(WorkspacesEnv, "")
	root := filepath.Join(t.TempDir(), "app")
	if got := WorkspacesDir(nil, root); !strings.HasPrefix(got, filepath.Join(tmp, "jj-workspaces", "app-")) {
		t.Errorf("default: %s", got)
	}
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, FileName), []byte("[kaisen]\nworkspaces-dir = \"/srv/ws\"\n"), 0o644)
	cfg, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := WorkspacesDir(cfg, root); !strings.HasPrefix(got, "/srv/ws/app-") {
		t.Errorf("configured: %s", got)
	}
	t.Setenv(WorkspacesEnv, "/var/ws")
	if got := WorkspacesDir(cfg, root); !strings.HasPrefix(got, "/var/ws/app-") {
		t.Errorf("environment: %s", got)
	}
	os.WriteFile(filepath.Join(root, FileName), []byte("[kaisen]\nworkspaces-dir = \"ws\"\n"), 0o644)
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "workspaces-dir = \"ws\": must be an absolute path") {
		t.Errorf("relative workspaces-dir: %v", err)
	}
	// A relative $SPECSTACK_WORKSPACES would put workspaces wherever the
	// command runs, inside a working copy too: refused, and never used.
	os.WriteFile(filepath.Join(root, FileName), nil, 0o644)
	t.Setenv(WorkspacesEnv, "rel/ws")
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), `SPECSTACK_WORKSPACES="rel/ws": must be an absolute path`) {
		t.Errorf("relative %s: %v", WorkspacesEnv, err)
	}
	if got := WorkspacesDir(cfg, root); !strings.HasPrefix(got, "/srv/ws/app-") {
		t.Errorf("relative %s used: %s", WorkspacesEnv, got)
	}
}

// A repository's specstack.toml names the commands that run: it is read
// only from inside the repository, and only when it is a regular file (a
// FIFO would block the command for ever).
func TestLoadRefusesOddFiles(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	outside := filepath.Join(t.TempDir(), "evil.toml")
	os.WriteFile(outside, []byte("[worker]\ncommand = \"sh /tmp/evil.sh\"\n"), 0o644)

	link := t.TempDir()
	os.Symlink(outside, filepath.Join(link, FileName))
	fifo := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifo, FileName), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, FileName), 0o755)
	for _, tc := range []struct{ root, want string }{
		{link, "outside the repository"},
		{fifo, "a named pipe (FIFO), not a regular file"},
		{dir, "a directory, not a regular file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := Load(tc.root); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), FileName) {
				t.Errorf("Load(%s): %v, want an error naming %s: %s", tc.root, err, FileName, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) still blocked after 10s: it opened the FIFO", tc.root)
		}
	}

	// a link that stays inside the repository is followed; the user's own
	// file may be a link anywhere (dotfiles)
	inside := t.TempDir()
	os.MkdirAll(filepath.Join(inside, "conf"), 0o755)
	os.WriteFile(filepath.Join(inside, "conf", "x.toml"), []byte("[kaisen]\nmax-parallel = 2\n"), 0o644)
	os.Symlink("conf/x.toml", filepath.Join(inside, FileName))
	os.MkdirAll(filepath.Join(xdg, "specstack"), 0o755)
	os.Symlink(outside, filepath.Join(xdg, "specstack", "config.toml"))
	cfg, err := Load(inside)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Kaisen.MaxParallel != 2 || cfg.Worker.Command != "sh /tmp/evil.sh" {
		t.Errorf("config %+v: want max-parallel 2 from the repository, the command from the user's file", cfg)
	}
}

// TestMaxCostSetting: [worker] max-cost is 0 (no limit) or more dollars;
// a negative number, nan and inf (TOML has both) are refused.
func TestMaxCostSetting(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	for body, ok := range map[string]bool{"0": true, "1.5": true, "-1": false, "nan": false, "inf": false} {
		os.WriteFile(filepath.Join(root, FileName), []byte("[worker]\nmax-cost = "+body+"\n"), 0o644)
		_, err := Load(root)
		if (err == nil) != ok || err != nil && !strings.Contains(err.Error(), "must be 0 (no limit) or more US dollars") {
			t.Errorf("max-cost = %s: %v, want ok %v", body, err, ok)
		}
	}
}
