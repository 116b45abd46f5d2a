package fakegh_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/fakegh"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/stack/ghapi"
)

// setup serves acme/app whose origin has main, a, b and c.
func setup(t *testing.T) (*ghapi.Client, *fakegh.Server, string) {
	t.Helper()
	testenv.Isolate(t)
	origin, _ := testenv.Origin(t, t.TempDir(), nil, "a", "b", "c")
	st := fakegh.NewState()
	st.AddRepo("acme", "app", origin, "main")
	srv := fakegh.NewServer(st)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t", APIURL: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv, hs.URL
}

func TestUnauthenticated(t *testing.T) {
	_, _, url := setup(t)
	resp, err := http.Get(url + "/repos/acme/app")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", resp.StatusCode)
	}
}

func TestStackRules(t *testing.T) {
	c, srv, _ := setup(t)
	ctx := t.Context()
	open := func(head, base string) int {
		p, err := c.CreatePull(ctx, ghapi.NewPull{Title: head, Head: head, Base: base, Draft: true})
		if err != nil {
			t.Fatal(err)
		}
		return p.Number
	}
	a, b, cc := open("a", "main"), open("b", "a"), open("c", "b")
	if _, err := c.CreatePull(ctx, ghapi.NewPull{Title: "again", Head: "a", Base: "main"}); !ghapi.IsStatus(err, 422) || !strings.Contains(err.Error(), "A pull request already exists for acme:a.") {
		t.Errorf("duplicate pull: %v", err)
	}

	refused := []struct {
		name  string
		pulls []int
		msg   string
	}{
		{"one", []int{a}, "at least 2"},
		{"out of order", []int{b, a}, "has base main, not b"},
		{"missing", []int{a, 99}, "#99 does not exist"},
		{"twice", []int{a, a}, "listed twice"},
	}
	for _, r := range refused {
		if _, err := c.CreateStack(ctx, r.pulls); !ghapi.IsStatus(err, 422) || !strings.Contains(err.Error(), r.msg) {
			t.Errorf("%s: %v, want 422 %q", r.name, err, r.msg)
		}
	}
	s, err := c.CreateStack(ctx, []int{a, b})
	if err != nil || s.Number != 1 || len(s.PullRequests) != 2 || s.Base.Ref != "main" {
		t.Fatalf("CreateStack = %+v, %v", s, err)
	}
	if _, err := c.CreateStack(ctx, []int{b, cc}); !ghapi.IsStatus(err, 422) || !strings.Contains(err.Error(), "already in stack 1") {
		t.Errorf("PR in two stacks: %v", err)
	}
	if _, err := c.AddToStack(ctx, 1, []int{a}); !ghapi.IsStatus(err, 422) {
		t.Errorf("re-adding a member: %v", err)
	}
	s, err = c.AddToStack(ctx, 1, []int{cc})
	if err != nil || len(s.Numbers()) != 3 {
		t.Fatalf("AddToStack = %+v, %v", s, err)
	}
	p, err := c.Pull(ctx, cc)
	if err != nil || p.Stack == nil || p.Stack.Number != 1 || p.Stack.Position != 3 || p.Stack.Size != 3 {
		t.Errorf("pull's stack object = %+v, %v", p.Stack, err)
	}

	srv.Do(func(st *fakegh.State) { st.Repo("acme/app").StacksDisabled = true })
	if _, err := c.CreateStack(ctx, []int{a, b}); !ghapi.IsStatus(err, 404) && err == nil {
		t.Errorf("stacks off: %v", err)
	}
	var writes []string
	srv.Do(func(st *fakegh.State) {
		for _, r := range st.Log {
			if r.Method != http.MethodGet {
				writes = append(writes, r.Method+" "+r.Path)
			}
		}
	})
	if len(writes) == 0 || writes[0] != "POST /repos/acme/app/pulls" {
		t.Errorf("request log = %v", writes)
	}
}

func TestFaultOnce(t *testing.T) {
	c, srv, _ := setup(t)
	ctx := t.Context()
	srv.Do(func(st *fakegh.State) {
		st.Faults = append(st.Faults, fakegh.Fault{Method: "POST", Path: "/repos/acme/app/pulls", Status: 500, Times: 1})
	})
	pull := ghapi.NewPull{Title: "a", Head: "a", Base: "main"}
	if _, err := c.CreatePull(ctx, pull); !ghapi.IsStatus(err, 500) {
		t.Fatalf("first request: %v, want a 500", err)
	}
	if p, err := c.CreatePull(ctx, pull); err != nil || p.Number == 0 {
		t.Fatalf("second request = %+v, %v; want it served", p, err)
	}
	srv.Do(func(st *fakegh.State) {
		if len(st.Faults) != 0 {
			t.Errorf("faults left: %+v", st.Faults)
		}
	})
}
