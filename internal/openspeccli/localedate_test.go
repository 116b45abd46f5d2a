package openspeccli

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLocalDate compares localDate with Node's toLocaleDateString() in the
// same environment, for the locale variables as ICU reads them (the first
// of LC_ALL, LC_MESSAGES, LANG that is set, even empty; LC_TIME and
// LANGUAGE not at all).
func TestLocalDate(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("REQUIRE_OPENSPEC") != "" {
			t.Fatal("node is not on PATH and REQUIRE_OPENSPEC is set (the OpenSpec CLI runs on it)")
		}
		t.Skip("node is not on PATH: nothing to compare with")
	}
	envs := [][]string{
		nil, {"LANG=C.UTF-8"}, {"LANG=POSIX"}, {"LANG=de_DE.UTF-8"}, {"LANG=fr_FR.UTF-8"}, {"LANG=ja_JP.UTF-8"},
		{"LANG=en_GB.UTF-8"}, {"LANG=pt_BR"}, {"LANG=sr_RS@latin"}, {"LANG=de_DE.UTF-8@euro"}, {"LANG=ar_EG.UTF-8"},
		{"LANG=de"}, {"LANG=de_XX.UTF-8"}, {"LANG=xx_YY.UTF-8"}, {"LANG="}, {"LC_ALL=", "LANG=de_DE.UTF-8"},
		{"LC_ALL=fr_FR.UTF-8", "LANG=de_DE.UTF-8"}, {"LC_MESSAGES=ko_KR.UTF-8", "LANG=de_DE.UTF-8"},
		{"LC_TIME=fr_FR.UTF-8", "LANG=hu_HU.UTF-8"}, {"LANGUAGE=fr", "LANG=nl_NL.UTF-8"}, {"LANG=zh_CN.UTF-8"}, {"LANG=hi_IN"},
	}
	dates := []time.Time{time.Date(2026, 1, 5, 12, 0, 0, 0, time.Local), time.Date(1999, 12, 31, 12, 0, 0, 0, time.Local)}
	for _, env := range envs {
		cmd := exec.Command(node, "-e", `for (const a of process.argv.slice(1)) console.log(new Date(Number(a)).toLocaleDateString())`)
		for _, d := range dates {
			cmd.Args = append(cmd.Args, strconv.FormatInt(d.UnixMilli(), 10))
		}
		cmd.Env = env
		if tz, ok := os.LookupEnv("TZ"); ok {
			cmd.Env = append(cmd.Env, "TZ="+tz)
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node %v: %v", env, err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		getenv := func(k string) (string, bool) {
			for _, kv := range env {
				if name, v, _ := strings.Cut(kv, "="); name == k {
					return v, true
				}
			}
			return "", false
		}
		for i, d := range dates {
			if got := localDate(d, getenv); got != want[i] {
				t.Errorf("%v, %s: localDate %q, node %q", env, d.Format("2006-01-02"), got, want[i])
			}
		}
	}
}
