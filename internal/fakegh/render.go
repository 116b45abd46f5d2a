package fakegh

import "fmt"

// The JSON shapes below follow GitHub's REST API for the fields specstack
// reads; URLs are fixed to github.com so dumps are stable.

func labelsJSON(names []string) []map[string]string {
	res := []map[string]string{}
	for _, n := range names {
		res = append(res, map[string]string{"name": n})
	}
	return res
}

func (r *Repo) issueJSON(i *Issue) map[string]any {
	res := map[string]any{
		"id":       int64(1000 + i.Number),
		"node_id":  fmt.Sprintf("I_%s_%s_%d", r.Owner, r.Name, i.Number),
		"number":   i.Number,
		"title":    i.Title,
		"body":     i.Body,
		"state":    i.State,
		"labels":   labelsJSON(i.Labels),
		"html_url": fmt.Sprintf("https://github.com/%s/%s/issues/%d", r.Owner, r.Name, i.Number),
	}
	if i.NoNumber {
		delete(res, "number")
	}
	return res
}

func (r *Repo) refJSON(branch string) map[string]any {
	sha, _ := branchSHA(r, branch)
	return map[string]any{"ref": branch, "sha": sha, "label": r.Owner + ":" + branch}
}

func (r *Repo) pullJSON(p *Pull) map[string]any {
	res := map[string]any{
		"id":        int64(2000 + p.Number),
		"node_id":   r.pullNodeID(p.Number),
		"number":    p.Number,
		"state":     p.State,
		"title":     p.Title,
		"body":      p.Body,
		"draft":     p.Draft,
		"html_url":  fmt.Sprintf("https://github.com/%s/%s/pull/%d", r.Owner, r.Name, p.Number),
		"head":      r.refJSON(p.Head),
		"base":      r.refJSON(p.Base),
		"merged_at": nil,
	}
	if s, pos := r.stackOf(p.Number); s != nil {
		bottom := r.pull(s.Pulls[0])
		res["stack"] = map[string]any{
			"id": int64(3000 + s.Number), "number": s.Number, "size": len(s.Pulls), "position": pos,
			"base": r.refJSON(bottom.Base),
		}
	}
	return res
}

func (r *Repo) pullNodeID(n int) string {
	return fmt.Sprintf("PR_%s_%s_%d", r.Owner, r.Name, n)
}

func (r *Repo) stackJSON(s *Stack) map[string]any {
	entries := []map[string]any{}
	open := false
	for _, n := range s.Pulls {
		p := r.pull(n)
		sha, _ := branchSHA(r, p.Head)
		entries = append(entries, map[string]any{
			"number": n, "state": p.State, "draft": p.Draft, "merged_at": nil,
			"head": map[string]any{"ref": p.Head, "sha": sha},
		})
		open = open || p.State == "open"
	}
	base := ""
	if len(s.Pulls) > 0 {
		base = r.pull(s.Pulls[0]).Base
	}
	return map[string]any{
		"id":            int64(3000 + s.Number),
		"number":        s.Number,
		"node_id":       fmt.Sprintf("ST_%s_%s_%d", r.Owner, r.Name, s.Number),
		"url":           fmt.Sprintf("https://api.github.com/repos/%s/%s/stacks/%d", r.Owner, r.Name, s.Number),
		"base":          map[string]string{"ref": base},
		"open":          open,
		"created_at":    "2026-01-02T03:04:05Z",
		"pull_requests": entries,
	}
}
