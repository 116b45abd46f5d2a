package spec

import (
	"fmt"
	"strings"
)

// UnifiedDiff renders the change from old to new as a unified diff with
// three lines of context, labelled a/<name> and b/<name> (/dev/null for a
// missing side). It returns "" when the texts are equal.
func UnifiedDiff(name, old, new string, oldExists bool) string {
	if old == new && oldExists {
		return ""
	}
	a, b := diffLines(old), diffLines(new)
	ops := lcsOps(a, b)
	var out strings.Builder
	from := "a/" + name
	if !oldExists {
		from = "/dev/null"
	}
	fmt.Fprintf(&out, "--- %s\n+++ b/%s\n", from, name)
	const ctx = 3
	// Group ops into hunks around changes.
	type op struct {
		kind byte // ' ', '-', '+'
		text string
		ai   int
		bi   int
	}
	var all []op
	ai, bi := 0, 0
	for _, k := range ops {
		switch k {
		case ' ':
			all = append(all, op{' ', a[ai], ai, bi})
			ai++
			bi++
		case '-':
			all = append(all, op{'-', a[ai], ai, bi})
			ai++
		case '+':
			all = append(all, op{'+', b[bi], ai, bi})
			bi++
		}
	}
	for i := 0; i < len(all); {
		if all[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i
		for end < len(all) {
			if all[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(all) && all[run].kind == ' ' {
				run++
			}
			if run == len(all) || run-end > 2*ctx {
				end = min(end+ctx, len(all))
				break
			}
			end = run
		}
		h := all[start:end]
		aStart, bStart, aLen, bLen := h[0].ai, h[0].bi, 0, 0
		for _, o := range h {
			if o.kind != '+' {
				aLen++
			}
			if o.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, o := range h {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			if !strings.HasSuffix(o.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// diffLines splits s into lines that keep their '\n'.
func diffLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lcsOps returns an edit script (' ', '-', '+') turning a into b, from a
// longest common subsequence over the lines between a common prefix and
// suffix.
func lcsOps(a, b []string) []byte {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(ma), len(mb)
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	ops := make([]byte, 0, len(a)+len(b))
	for range pre {
		ops = append(ops, ' ')
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case ma[i] == mb[j]:
			ops = append(ops, ' ')
			i++
			j++
		case dp[i+1][j] >= dp[i][j+1]:
			ops = append(ops, '-')
			i++
		default:
			ops = append(ops, '+')
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, '-')
	}
	for ; j < m; j++ {
		ops = append(ops, '+')
	}
	for range suf {
		ops = append(ops, ' ')
	}
	return ops
}
