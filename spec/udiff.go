package spec

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
)

// UnifiedDiff renders the change from old to new as a unified diff with
// three lines of context, labelled a/<name> and b/<name> (/dev/null for a
// missing side). It returns "" when the texts are equal.
func UnifiedDiff(name, old, new string, oldExists bool) string {
	if old == new && oldExists {
		return ""
	}
	a, b := diffLines(old), diffLines(new)
	ops := editScript(old, new, a, b)
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

// maxLCSCells bounds the table lcsOps may fill for one region between
// anchors: a region whose sides multiply beyond it stays a plain
// delete-then-insert. With the bound, a diff costs O(n log n) for the
// anchors plus at most sqrt(maxLCSCells) steps per line for the regions.
const maxLCSCells = 1 << 16

// editScript returns an edit script (' ', '-', '+') turning a into b (the
// lines of old and new). The anchored diff of go-internal/diff (O(n log n):
// lines unique to both sides anchor the matching regions) finds what is
// common; each region of changed lines between anchors is then refined with
// an exact longest common subsequence when it is small, so a typical spec
// diff matches blank lines and repeated scenario lines as a minimal diff
// does, while a large one never allocates an n×m table.
func editScript(old, new string, a, b []string) []byte {
	ops, ok := anchoredOps(old, new, a, b)
	if !ok {
		ops = lcsOpsBounded(a, b)
	}
	out := make([]byte, 0, len(ops))
	ai, bi := 0, 0
	for k := 0; k < len(ops); {
		if ops[k] == ' ' {
			out = append(out, ' ')
			ai, bi, k = ai+1, bi+1, k+1
			continue
		}
		dx, dy := 0, 0
		for ; k < len(ops) && ops[k] != ' '; k++ {
			if ops[k] == '-' {
				dx++
			} else {
				dy++
			}
		}
		out = append(out, lcsOpsBounded(a[ai:ai+dx], b[bi:bi+dy])...)
		ai, bi = ai+dx, bi+dy
	}
	return out
}

// anchoredOps reads the edit script back from go-internal/diff's unified
// output: its hunks say which lines it deletes and inserts, every line
// between hunks is common. ok is false if the output does not read back
// exactly onto a and b (which would be a bug; the caller then falls back).
func anchoredOps(old, new string, a, b []string) ([]byte, bool) {
	raw := string(diff.Diff("a", []byte(old), "b", []byte(new)))
	// go-internal marks a last line without a newline inside the line.
	xl, yl := markLast(a, old), markLast(b, new)
	ops := make([]byte, 0, len(a)+len(b))
	i, j := 0, 0
	pos := 0
	for range 3 { // "diff a b", "--- a", "+++ b"
		nl := strings.IndexByte(raw[pos:], '\n')
		if nl < 0 {
			return nil, raw == ""
		}
		pos += nl + 1
	}
	for pos < len(raw) {
		nl := strings.IndexByte(raw[pos:], '\n')
		if nl < 0 {
			return nil, false
		}
		var x, nx, y, ny int
		if _, err := fmt.Sscanf(raw[pos:pos+nl], "@@ -%d,%d +%d,%d @@", &x, &nx, &y, &ny); err != nil {
			return nil, false
		}
		pos += nl + 1
		if nx > 0 {
			x--
		}
		if ny > 0 {
			y--
		}
		if x-i != y-j || x < i {
			return nil, false
		}
		for ; i < x; i, j = i+1, j+1 {
			ops = append(ops, ' ')
		}
		for endX, endY := i+nx, j+ny; i < endX || j < endY; {
			if pos >= len(raw) {
				return nil, false
			}
			op := raw[pos]
			var text string
			switch {
			case (op == ' ' || op == '-') && i < len(xl):
				text = xl[i]
			case op == '+' && j < len(yl):
				text = yl[j]
			default:
				return nil, false
			}
			if !strings.HasPrefix(raw[pos+1:], text) {
				return nil, false
			}
			pos += 1 + len(text)
			ops = append(ops, op)
			if op != '+' {
				i++
			}
			if op != '-' {
				j++
			}
		}
	}
	if len(a)-i != len(b)-j {
		return nil, false
	}
	for ; i < len(a); i++ {
		ops = append(ops, ' ')
	}
	return ops, true
}

// markLast returns lines as go-internal/diff prints them: a last line
// without a newline carries the "\ No newline at end of file" marker.
func markLast(lines []string, text string) []string {
	if len(lines) == 0 || strings.HasSuffix(text, "\n") {
		return lines
	}
	out := append([]string(nil), lines...)
	out[len(out)-1] += "\n\\ No newline at end of file\n"
	return out
}

// lcsOpsBounded is lcsOps when the table it needs is small, else the
// region as it stands: a common prefix and suffix around a block of
// deletions followed by insertions.
func lcsOpsBounded(a, b []string) []byte {
	pre, suf := commonEnds(a, b)
	n, m := len(a)-pre-suf, len(b)-pre-suf
	if n*m <= maxLCSCells {
		return lcsOps(a, b)
	}
	ops := make([]byte, 0, len(a)+len(b))
	ops = append(ops, bytes.Repeat([]byte{' '}, pre)...)
	ops = append(ops, bytes.Repeat([]byte{'-'}, n)...)
	ops = append(ops, bytes.Repeat([]byte{'+'}, m)...)
	return append(ops, bytes.Repeat([]byte{' '}, suf)...)
}

// lcsOps returns an edit script (' ', '-', '+') turning a into b, from a
// longest common subsequence over the lines between a common prefix and
// suffix.
func lcsOps(a, b []string) []byte {
	pre, suf := commonEnds(a, b)
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

// commonEnds returns the number of lines a and b share at the start and,
// after those, at the end.
func commonEnds(a, b []string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}
