package gitx_test

import (
	"context"
	"testing"
	"time"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/xec"
)

// BenchmarkReads times the reads a kaisen wave, an apply (the drift
// walk's files) and a publish lane (resolve, ancestry, the branches, the
// origin's branch) make, in process through go-git, against the git
// command each replaced, run the same number of times: the cli/in-process
// metric is how many times slower the CLI is.
func BenchmarkReads(b *testing.B) {
	f, _ := history(b)
	ctx := context.Background()
	r := &gitx.Repo{Dir: f.dir}
	git := func(args ...string) func() error {
		return func() error {
			_, err := xec.Output(ctx, xec.Cmd{Name: "git", Dir: f.dir, Args: args, Env: []string{"GIT_OPTIONAL_LOCKS=0"}})
			return err
		}
	}
	for _, c := range []struct {
		name   string
		ours   func() error
		theirs func() error
	}{
		{"resolve", func() error { _, err := r.Resolve(ctx, "main~1"); return err }, git("rev-parse", "--verify", "main~1^{commit}")},
		{"commit", func() error { _, err := r.Commit(ctx, "main"); return err }, git("cat-file", "commit", "main")},
		{"is-ancestor", func() error { _, err := r.IsAncestor(ctx, "side", "main"); return err }, git("merge-base", "--is-ancestor", "side", "main")},
		{"branches", func() error { _, err := r.Branches(ctx); return err }, git("for-each-ref", "refs/heads/")},
		{"read-files", func() error {
			_, err := r.ReadFiles(ctx, []string{"main:b.txt", "main~1:a.txt", "main:dir/sub/x.md"})
			return err
		}, git("cat-file", "-p", "main:b.txt")},
		{"remote-head", func() error { _, _, err := r.RemoteHead(ctx, "origin", "main"); return err }, git("ls-remote", "--heads", "origin", "refs/heads/main")},
	} {
		b.Run(c.name, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if err := c.ours(); err != nil {
					b.Fatal(err)
				}
			}
			ours := time.Since(start) / time.Duration(b.N)
			n := min(b.N, 20)
			start = time.Now()
			for range n {
				if err := c.theirs(); err != nil {
					b.Fatal(err)
				}
			}
			theirs := time.Since(start) / time.Duration(n)
			b.ReportMetric(float64(theirs)/float64(ours), "cli/in-process")
			b.ReportMetric(float64(theirs.Microseconds()), "cli-µs/op")
		})
	}
}
