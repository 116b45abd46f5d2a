package ghapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/xec"
)

// Lean is the Backend of this package: gh's rules for hosts and tokens,
// read without gh's libraries, and plain net/http.
//
//   - the default host is GH_HOST, else the one host of gh's hosts.yml,
//     else github.com;
//   - a token is GH_TOKEN or GITHUB_TOKEN (github.com, *.ghe.com,
//     github.localhost) or GH_ENTERPRISE_TOKEN or GITHUB_ENTERPRISE_TOKEN
//     (other hosts), else the host's oauth_token in hosts.yml, else what
//     `gh auth token --secure-storage --hostname HOST` prints (gh from
//     GH_PATH or PATH; the system keyring);
//   - requests carry the headers go-gh sends (JSON, API version 2022-11-28,
//     the token as "token X" to the host and the API override only).
//
// What go-gh does besides, Lean does not: GH_DEBUG's request log, gh's
// http_unix_socket setting, and replacing control characters in JSON
// answers.
type Lean struct{}

const (
	hostGitHub    = "github.com"
	hostLocal     = "github.localhost"
	tenancySuffix = ".ghe.com"
)

// ghAuthTimeout bounds `gh auth token` (under the caller's context).
const ghAuthTimeout = 30 * time.Second

// Auth implements Backend: gh's hosts.yml is read once, when first
// needed, for the default host and the tokens both.
func (Lean) Auth() Auth { return &leanAuth{} }

type leanAuth struct {
	once  sync.Once
	hosts []hostEntry
}

func (a *leanAuth) hostsFile() []hostEntry {
	a.once.Do(func() { a.hosts = readHostsFile(ghConfigDir()) })
	return a.hosts
}

// DefaultHost implements Auth.
func (a *leanAuth) DefaultHost() string {
	if h := os.Getenv("GH_HOST"); h != "" {
		return h
	}
	if hosts := a.hostsFile(); len(hosts) == 1 {
		return hosts[0].name
	}
	return hostGitHub
}

// ParseRepo implements Backend.
func (Lean) ParseRepo(s, host string) (Target, error) {
	if strings.Contains(s, "://") || strings.HasPrefix(s, "git@") {
		return parseRemoteURL(s)
	}
	parts := strings.SplitN(s, "/", 4)
	for _, p := range parts {
		if p == "" {
			return Target{}, fmt.Errorf(`expected the "[HOST/]OWNER/REPO" format, got %q`, s)
		}
	}
	switch len(parts) {
	case 3:
		return Target{Host: parts[0], Owner: parts[1], Name: parts[2]}, nil
	case 2:
		return Target{Host: host, Owner: parts[0], Name: parts[1]}, nil
	}
	return Target{}, fmt.Errorf(`expected the "[HOST/]OWNER/REPO" format, got %q`, s)
}

// Token implements Auth. `gh auth token` runs under ctx, at most
// ghAuthTimeout.
func (a *leanAuth) Token(ctx context.Context, host string) string {
	h := normalizeHost(host)
	vars := []string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}
	if !isEnterprise(h) {
		vars = []string{"GH_TOKEN", "GITHUB_TOKEN"}
	}
	for _, v := range vars {
		if tok := os.Getenv(v); tok != "" {
			return tok
		}
	}
	for _, e := range a.hostsFile() {
		if e.name == h && e.token != "" {
			return e.token
		}
	}
	return GHAuthToken(ctx, host)
}

// GHAuthToken is the token `gh auth token --secure-storage --hostname
// HOST` prints (gh from GH_PATH, else PATH; "" without gh or a token),
// run under ctx and at most ghAuthTimeout: the system keyring's token,
// which gh's configuration file does not hold.
func GHAuthToken(ctx context.Context, host string) string {
	gh := os.Getenv("GH_PATH")
	if gh == "" {
		gh, _ = xec.LookPath("gh")
	}
	if gh == "" {
		return ""
	}
	out, err := xec.Output(ctx, xec.Cmd{Name: gh, Args: []string{"auth", "token", "--secure-storage", "--hostname", host}, Timeout: ghAuthTimeout})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Requester implements Backend.
func (Lean) Requester(o RequesterOptions) (Requester, error) {
	rt := o.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	return leanRequester{client: &http.Client{Transport: rt}, o: o}, nil
}

type leanRequester struct {
	client *http.Client
	o      RequesterOptions
}

func (r leanRequester) RequestWithContext(ctx context.Context, method, url string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "specstack")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Accept", "application/vnd.github.merge-info-preview+json, application/vnd.github.nebula-preview")
	if h := req.URL.Hostname(); r.o.Token != "" && (sameDomain(h, r.o.Host) || (r.o.APIHost != "" && strings.EqualFold(h, r.o.APIHost))) {
		req.Header.Set("Authorization", "token "+r.o.Token)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, refusal(resp)
}

// refusal reads GitHub's error answer as go-gh's HandleHTTPError does.
func refusal(resp *http.Response) *Refusal {
	r := &Refusal{Status: resp.StatusCode, Headers: resp.Header}
	ct := resp.Header.Get("Content-Type")
	if !isJSONType(ct) {
		r.Message = resp.Status
		return r
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		r.Message = err.Error()
		return r
	}
	var parsed struct {
		Message string            `json:"message"`
		Errors  []json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(data, &parsed) != nil {
		return r
	}
	var msgs []string
	if parsed.Message != "" {
		msgs = append(msgs, parsed.Message)
	}
	for _, raw := range parsed.Errors {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		switch raw[0] {
		case '"':
			var s string
			_ = json.Unmarshal(raw, &s)
			msgs = append(msgs, s)
			r.Items = append(r.Items, s)
		case '{':
			var item struct{ Code, Field, Message, Resource string }
			_ = json.Unmarshal(raw, &item)
			msg := item.Message
			if item.Code != "" && item.Code != "custom" {
				msg = fmt.Sprintf("%s.%s %s", item.Resource, item.Field, codeMessage(item.Code))
			}
			if msg != "" {
				msgs = append(msgs, msg)
			}
			r.Items = append(r.Items, item.Message)
		}
	}
	r.Message = strings.Join(msgs, "\n")
	return r
}

// jsonType is go-gh's test of a JSON Content-Type.
var jsonType = lazyregexp.New(`[/+]json($|;)`)

func isJSONType(ct string) bool { return jsonType.MatchString(ct) }

func codeMessage(code string) string {
	switch code {
	case "missing", "missing_field":
		return "is missing"
	case "invalid", "unprocessable":
		return "is invalid"
	case "already_exists":
		return "already exists"
	}
	return code
}

func sameDomain(host, domain string) bool {
	host, domain = strings.ToLower(host), strings.ToLower(domain)
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// normalizeHost is gh's: subdomains of github.com and github.localhost
// are those hosts, a tenancy host is its last label before ghe.com.
func normalizeHost(host string) string {
	h := strings.ToLower(host)
	switch {
	case strings.HasSuffix(h, "."+hostGitHub):
		return hostGitHub
	case strings.HasSuffix(h, "."+hostLocal):
		return hostLocal
	}
	if before, ok := strings.CutSuffix(h, tenancySuffix); ok {
		return before[strings.LastIndex(before, ".")+1:] + tenancySuffix
	}
	return h
}

// isEnterprise reports whether host is a GitHub Enterprise Server: not
// github.com, github.localhost or a tenancy (*.ghe.com).
func isEnterprise(host string) bool {
	h := normalizeHost(host)
	return h != hostGitHub && h != hostLocal && !strings.HasSuffix(h, tenancySuffix)
}

// ghConfigDir is gh's configuration directory.
func ghConfigDir() string {
	if d := os.Getenv("GH_CONFIG_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "gh")
	}
	if d := os.Getenv("AppData"); runtime.GOOS == "windows" && d != "" {
		return filepath.Join(d, "GitHub CLI")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "gh")
}

type hostEntry struct{ name, token string }

// readHostsFile reads the hosts of gh's hosts.yml and their oauth_token,
// the file as gh writes it: a mapping of host names, each a mapping whose
// keys are indented under it. Nothing (no file, unreadable) is no hosts.
func readHostsFile(dir string) []hostEntry {
	data, err := os.ReadFile(filepath.Join(dir, "hosts.yml"))
	if err != nil {
		return nil
	}
	var hosts []hostEntry
	indent := -1 // of the current host's keys
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || trimmed[0] == '#' || line == "---" {
			continue
		}
		key, value, ok := strings.Cut(trimmed, ":")
		if !ok {
			continue
		}
		key, value = unquote(strings.TrimSpace(key)), strings.TrimSpace(value)
		depth := len(line) - len(trimmed)
		switch {
		case depth == 0:
			hosts = append(hosts, hostEntry{name: key})
			indent = -1
		case len(hosts) > 0 && (indent < 0 || depth == indent):
			indent = depth
			if key == "oauth_token" {
				hosts[len(hosts)-1].token = unquote(value)
			}
		}
	}
	return hosts
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
