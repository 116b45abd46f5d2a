package engine

import "testing"

// TestBuildJobPIDFile: every job gh-specstack builds has a pid file, so a
// resumed run stops what a killed one left running (RunJob); a ticket's
// worker keeps the one it names.
func TestBuildJobPIDFile(t *testing.T) {
	for _, tc := range []struct {
		q    JobRequest
		want string
	}{
		{JobRequest{Role: RoleReviewer, Log: "/a/tickets/3/reviewer.log"}, "/a/tickets/3/reviewer.pid"},
		{JobRequest{Role: "test", Log: "/a/tickets/3/gate-1.log"}, "/a/tickets/3/gate-1.pid"},
		{JobRequest{Role: RoleImplementer, Log: "/a/tickets/3/worker.log", PIDFile: "/a/tickets/3/worker.pid"}, "/a/tickets/3/worker.pid"},
		{JobRequest{Role: "test"}, ""},
	} {
		if got := BuildJob(tc.q).PIDFile; got != tc.want {
			t.Errorf("BuildJob(%s, log %q).PIDFile = %q, want %q", tc.q.Role, tc.q.Log, got, tc.want)
		}
	}
}
