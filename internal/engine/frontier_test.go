package engine

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunFrontier(t *testing.T) {
	// 1 and 3 are ready at once; 2 needs 1; 4 needs 2 and 3; 5 needs 4.
	tasks := []Task{{Num: 1}, {Num: 2, Deps: []int{1}}, {Num: 3}, {Num: 4, Deps: []int{2, 3}}, {Num: 5, Deps: []int{4}}}
	tests := []struct {
		name    string
		done    map[int]bool
		fail    int
		limit   int
		want    []int // done, sorted
		failed  []int
		skipped []int
	}{
		{name: "all", want: []int{1, 2, 3, 4, 5}},
		{name: "bounded to one", limit: 1, want: []int{1, 2, 3, 4, 5}},
		{name: "resumed", done: map[int]bool{1: true, 3: true}, want: []int{2, 4, 5}},
		{name: "a failure blocks its dependents", fail: 2, want: []int{1, 3}, failed: []int{2}, skipped: []int{4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			started := map[int]bool{}
			var order []int
			res := RunFrontier(t.Context(), tasks, tt.done, tt.limit, func(_ context.Context, task Task) error {
				mu.Lock()
				defer mu.Unlock()
				for _, d := range task.Deps {
					if !started[d] && !tt.done[d] {
						t.Errorf("task %d started before its dependency %d", task.Num, d)
					}
				}
				started[task.Num] = true
				order = append(order, task.Num)
				if task.Num == tt.fail {
					return errors.New("boom")
				}
				return nil
			})
			got := append([]int(nil), res.Done...)
			sort.Ints(got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("done %v, want %v", got, tt.want)
			}
			var failed []int
			for n := range res.Failed {
				failed = append(failed, n)
			}
			if !reflect.DeepEqual(failed, tt.failed) {
				t.Errorf("failed %v, want %v", failed, tt.failed)
			}
			if !reflect.DeepEqual(res.Skipped, tt.skipped) {
				t.Errorf("skipped %v, want %v", res.Skipped, tt.skipped)
			}
			for n := range tt.done {
				if started[n] {
					t.Errorf("task %d was done already but ran again", n)
				}
			}
		})
	}
}

func TestRunFrontierLimitAndCancel(t *testing.T) {
	tasks := make([]Task, 10)
	for i := range tasks {
		tasks[i] = Task{Num: i + 1}
	}
	var running, peak atomic.Int32
	res := RunFrontier(t.Context(), tasks, nil, 3, func(context.Context, Task) error {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
		return nil
	})
	if p := peak.Load(); p > 3 || len(res.Done) != 10 {
		t.Errorf("peak %d (want <= 3), done %d", p, len(res.Done))
	}

	ctx, cancel := context.WithCancel(t.Context())
	res = RunFrontier(ctx, tasks, nil, 1, func(context.Context, Task) error {
		cancel()
		return nil
	})
	if len(res.Done) != 1 || len(res.Skipped) != 9 {
		t.Errorf("after cancel: done %v, skipped %v", res.Done, res.Skipped)
	}
}
