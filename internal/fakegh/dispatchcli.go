package fakegh

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/specstack/specstack/stack/ghapi"
)

// dispatchCommand is `fakegh dispatch`: it serves st on a loopback port,
// dispatches a workflow through specstack's own client (ghapi) as
// specstack's executor does, and with --wait follows the run until it
// completes, printing "run ID STATUS CONCLUSION". It exits 0 when the
// dispatch was accepted (and, with --wait, the run succeeded), 1
// otherwise.
func dispatchCommand(st *State, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("dispatch", flag.ContinueOnError)
	ref := fs.String("ref", "", "")
	title := fs.String("title", "", "")
	wait := fs.Bool("wait", false, "")
	var inputs, files multi
	fs.Var(&inputs, "input", "")
	fs.Var(&files, "input-file", "")
	pos, err := parse(fs, args)
	if err != nil {
		return 2, err
	}
	if len(pos) != 2 || !strings.Contains(pos[0], "/") {
		return 2, fmt.Errorf("dispatch: name the repository and the workflow, as in dispatch acme/app specstack-worker.yml --ref main")
	}
	r := st.Repo(pos[0])
	if r == nil {
		return 2, fmt.Errorf("dispatch: repository %s is not registered", pos[0])
	}
	if *ref == "" {
		*ref = r.DefaultBranch
	}
	d := ghapi.Dispatch{Workflow: pos[1], Ref: *ref, Title: *title, Inputs: map[string]string{}}
	for _, kv := range inputs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return 2, fmt.Errorf("dispatch: --input %q: want NAME=VALUE", kv)
		}
		d.Inputs[k] = v
	}
	for _, kv := range files {
		k, path, ok := strings.Cut(kv, "=")
		if !ok {
			return 2, fmt.Errorf("dispatch: --input-file %q: want NAME=FILE", kv)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return 2, fmt.Errorf("dispatch: read %q: %w", path, err)
		}
		d.Inputs[k] = string(data)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1, fmt.Errorf("listen: %w", err)
	}
	srv := NewServer(st)
	hs := &http.Server{Handler: srv}
	go func() { _ = hs.Serve(ln) }()
	defer func() {
		_ = hs.Shutdown(context.Background())
		srv.Close()
	}()
	c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: r.Owner, Name: r.Name, Token: "fakegh",
		APIURL: "http://" + ln.Addr().String() + "/"}, nil)
	if err != nil {
		return 1, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), srv.runTimeout()+time.Minute)
	defer cancel()
	run, err := c.DispatchWorkflow(ctx, d)
	if err != nil {
		return 1, err
	}
	if !*wait {
		fmt.Fprintf(stdout, "run %d queued\n", run.ID)
		return 0, nil
	}
	w := c.WatchRun(run.ID)
	for {
		got, _, err := w.Poll(ctx)
		if err != nil {
			return 1, err
		}
		if got.Completed() {
			fmt.Fprintf(stdout, "run %d %s %s\n", got.ID, got.Status, got.Conclusion)
			if got.Succeeded() {
				return 0, nil
			}
			srv.Do(func(st *State) {
				if x := st.Repo(pos[0]).run(got.ID); x != nil {
					fmt.Fprint(stderr, x.Output)
				}
			})
			return 1, nil
		}
		select {
		case <-ctx.Done():
			return 1, fmt.Errorf("dispatch: run %d did not complete: %w", run.ID, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
