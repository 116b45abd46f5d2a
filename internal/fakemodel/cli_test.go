package fakemodel

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunServesTheCommandAndLogs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(LogEnv, filepath.Join(dir, "log"))
	t.Setenv(StateEnv, filepath.Join(dir, "state.json"))
	t.Setenv("NO_PROXY", "example.org")
	scen := filepath.Join(dir, "s.json")
	if err := os.WriteFile(scen, []byte(`{"rules":[{"match":"","turns":[{"text":"hi"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	script := `printf '%s\n' "$ANTHROPIC_BASE_URL" "$ANTHROPIC_API_KEY" "$OPENAI_BASE_URL" "$OPENAI_API_KEY" "$SPECSTACK_CODEX_PROVIDER_URL" "$NO_PROXY" "$DISABLE_TELEMETRY"; exit 3`
	if code := run([]string{"run", scen, "--", "sh", "-c", script}, &out, &errb); code != 3 {
		t.Fatalf("exit %d, want the command's 3; stderr %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 7 {
		t.Fatalf("env lines %q", lines)
	}
	base := lines[0]
	if !strings.HasPrefix(base, "http://127.0.0.1:") || lines[1] != DummyKey || lines[2] != base+"/v1" ||
		lines[3] != DummyKey || lines[4] != base+"/v1" || lines[5] != "127.0.0.1,localhost,::1,example.org" || lines[6] != "1" {
		t.Errorf("env %q", lines)
	}

	// The log: empty until something is served.
	out.Reset()
	if code := run([]string{"log"}, &out, &errb); code != 0 || out.Len() != 0 {
		t.Errorf("log of nothing: exit %d, %q", code, out.String())
	}
	sc, _ := LoadScenario(scen)
	srv := NewServer(sc, os.Getenv(LogEnv), os.Getenv(StateEnv))
	url, stop, err := Listen(srv)
	if err != nil {
		t.Fatal(err)
	}
	post(t, url+"/v1/messages?beta=true", claudeRequest("x")).Body.Close()
	post(t, url+"/nowhere", nil).Body.Close()
	stop()
	out.Reset()
	if code := run([]string{"log"}, &out, &errb); code != 0 {
		t.Fatalf("log: exit %d: %s", code, errb.String())
	}
	want := "POST /v1/messages?beta=true anthropic rule=0 turn=0 200 text\nPOST /nowhere 404\n"
	if out.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if code := run([]string{"log", "--json"}, &out, &errb); code != 0 || strings.Count(out.String(), "\n") != 2 || !strings.Contains(out.String(), `"rule":0,"turn":0`) {
		t.Errorf("log --json: exit %d\n%s", code, out.String())
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(LogEnv, filepath.Join(dir, "log"))
	t.Setenv(StateEnv, filepath.Join(dir, "state.json"))
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"rules":[{"turns":[{"text":"a","hang":true}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"rules":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: fakemodel"},
		{[]string{"run"}, 2, "run: name the scenario file"},
		{[]string{"run", filepath.Join(dir, "missing.json"), "--", "true"}, 2, "read scenario"},
		{[]string{"run", bad, "--", "true"}, 2, "bad.json: rules[0].turns[0]: say exactly one"},
		{[]string{"run", bad}, 2, "rules[0].turns[0]"},
		{[]string{"run", good, "--"}, 2, "name a command"},
		{[]string{"log", "extra"}, 2, "log takes only --json"},
		{[]string{"frob"}, 2, `unknown command "frob"`},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}

func TestHeadersHideCredentials(t *testing.T) {
	h := headers(map[string][]string{"X-Api-Key": {"sk-secret"}, "Authorization": {"Bearer sk-secret"}, "Anthropic-Version": {"2023-06-01"}})
	if h["x-api-key"] != "(set)" || h["authorization"] != "(set)" || h["anthropic-version"] != "2023-06-01" {
		t.Errorf("headers %v", h)
	}
}
