package spec

import "github.com/specstack/specstack/spec/internal/jstext"

// osFenceMask marks the lines that belong to a fenced code block, the
// opening and closing fence lines included, as OpenSpec's
// buildCodeFenceMask does: an opener is ^\s*(`{3,}|~{3,}), a closer is the
// same character repeated at least as often with only whitespace around.
func osFenceMask(lines []string) []bool {
	mask := make([]bool, len(lines))
	var open byte
	openLen := 0
	for i, line := range lines {
		if open == 0 {
			if c, n := osFenceRun(line); n >= 3 {
				open, openLen = c, n
				mask[i] = true
			}
			continue
		}
		mask[i] = true
		if c, n := osFenceRun(line); n >= 3 && c == open && n >= openLen {
			j := jstext.SkipSpace(line, 0) + n
			if jstext.IsAllSpace(line[j:]) {
				open = 0
			}
		}
	}
	return mask
}

// osFenceRun returns the fence character and the length of the run of it
// that starts the line after leading whitespace (n < 3 means no fence).
func osFenceRun(line string) (byte, int) {
	i := jstext.SkipSpace(line, 0)
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0
	}
	c := line[i]
	n := 0
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	return c, n
}
