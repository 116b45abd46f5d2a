package ghapi_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/stack/ghapi"
)

// A server that accepts and never answers, or stops halfway through its
// answer, ends the request at the limit with an error naming both.

func TestRequestDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(held)
				return
			}
			held <- c // accepted, never read or answered
		}
	}()
	defer func() {
		ln.Close()
		for c := range held {
			c.Close()
		}
	}()
	release := make(chan struct{})
	halfway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"number": 1, "ti`))
		w.(http.Flusher).Flush()
		<-release
	}))
	defer halfway.Close()
	defer close(release)

	for _, url := range []string{"http://" + ln.Addr().String() + "/", halfway.URL + "/"} {
		c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t", APIURL: url, Timeout: 300 * time.Millisecond}, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = c.Issue(t.Context(), 7)
		var te *ghapi.TimeoutError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "GET /repos/acme/app/issues/7: no answer from GitHub within 300ms") {
			t.Errorf("%s: error %v, want a timeout naming the request and the limit", url, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s for a 300ms limit", url, d)
		}
	}
}

func TestRequestTimeoutSettings(t *testing.T) {
	for _, tc := range []struct {
		env, configured string
		want            time.Duration
		err             string
	}{
		{"", "", ghapi.DefaultTimeout, ""},
		{"", "2m", 2 * time.Minute, ""},
		{"5s", "2m", 5 * time.Second, ""},
		{"soon", "", 0, `GH_SPECSTACK_TIMEOUT="soon": not a Go duration`},
		{"0", "", 0, `GH_SPECSTACK_TIMEOUT="0": must be positive`},
	} {
		t.Setenv(ghapi.TimeoutEnv, tc.env)
		got, err := ghapi.RequestTimeout(tc.configured)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("env %q config %q: %v, want error %q", tc.env, tc.configured, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("env %q config %q: %v, %v; want %v", tc.env, tc.configured, got, err, tc.want)
		}
	}
}
