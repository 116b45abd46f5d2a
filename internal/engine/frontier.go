package engine

import (
	"context"
	"sort"
)

// FrontierResult says what became of each task of a frontier run.
type FrontierResult struct {
	Done    []int         // finished, in completion order
	Failed  map[int]error // fn returned an error
	Skipped []int         // never started: a dependency failed, or the context ended
}

// RunFrontier runs tasks as their dependencies complete (gh-specstack's
// scheduling): every task whose Deps are all done starts at once, at most
// limit at a time (limit <= 0: no bound), and each completion may make
// more ready. done lists tasks finished earlier (a resumed run). A task
// whose dependency failed never starts. fn is called from several
// goroutines.
func RunFrontier(ctx context.Context, tasks []Task, done map[int]bool, limit int, fn func(context.Context, Task) error) FrontierResult {
	res := FrontierResult{Failed: map[int]error{}}
	finished := map[int]bool{}
	for n := range done {
		finished[n] = true
	}
	known := map[int]bool{}
	for _, t := range tasks {
		known[t.Num] = true
	}
	type outcome struct {
		num int
		err error
	}
	results := make(chan outcome)
	running := map[int]bool{}
	blocked := map[int]bool{} // failed, or depends on a failed task
	if limit <= 0 {
		limit = len(tasks)
	}
	for {
		if ctx.Err() == nil {
			for _, t := range Frontier(tasks, finished, running) {
				if len(running) >= limit {
					break
				}
				if blocked[t.Num] {
					continue
				}
				running[t.Num] = true
				go func(t Task) {
					results <- outcome{t.Num, fn(ctx, t)}
				}(t)
			}
		}
		if len(running) == 0 {
			break
		}
		o := <-results
		delete(running, o.num)
		if o.err != nil {
			res.Failed[o.num] = o.err
			blocked[o.num] = true
			finished[o.num] = true // so Frontier no longer offers it
			markDependents(tasks, o.num, blocked, known)
			continue
		}
		finished[o.num] = true
		res.Done = append(res.Done, o.num)
	}
	for _, t := range tasks {
		if !finished[t.Num] || (blocked[t.Num] && res.Failed[t.Num] == nil) {
			res.Skipped = append(res.Skipped, t.Num)
		}
	}
	sort.Ints(res.Skipped)
	return res
}

// markDependents blocks every task that depends, directly or not, on n.
func markDependents(tasks []Task, n int, blocked, known map[int]bool) {
	changed := true
	for changed {
		changed = false
		for _, t := range tasks {
			if blocked[t.Num] {
				continue
			}
			for _, d := range t.Deps {
				if d == n || (blocked[d] && known[d]) {
					blocked[t.Num] = true
					changed = true
					break
				}
			}
		}
	}
}
