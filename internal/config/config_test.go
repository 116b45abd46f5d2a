package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
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
		{"[kaisn]\nx = 1\n", "known sections: [worker], [kaisen], [openspec], [stack], [github]"},
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
