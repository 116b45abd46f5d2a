package linediff

// slide moves each run of deleted lines of a, and each run of inserted
// lines of b, between matched lines as far down as it goes: while the
// line after the run equals its first, the first is matched instead and
// the run takes the next line. A run that meets another change stops.
// The matching keeps its length; only which of equal lines it pairs
// changes, so the same edit always reads the same way (a removed block
// ends with its blank line, as git and GNU diff print it).
func slide[T comparable](a, b []T, ms []Pair) []Pair {
	ops := make([]byte, 0, len(a)+len(b)-len(ms))
	for _, o := range script(len(a), len(b), ms) {
		ops = append(ops, o.kind)
	}
	ai, bi := 0, 0
	for k := 0; k < len(ops); {
		if ops[k] == ' ' {
			ai, bi, k = ai+1, bi+1, k+1
			continue
		}
		kind := ops[k]
		e := k
		for e < len(ops) && ops[e] == kind {
			e++
		}
		for e < len(ops) && ops[e] == ' ' && sameAt(a, b, kind, ai, bi, e-k) {
			ops[k], ops[e] = ' ', kind
			ai, bi, k, e = ai+1, bi+1, k+1, e+1
			for e < len(ops) && ops[e] == kind {
				e++
			}
		}
		for ; k < e; k++ {
			if kind == '-' {
				ai++
			} else {
				bi++
			}
		}
	}
	out := ms[:0]
	ai, bi = 0, 0
	for _, k := range ops {
		switch k {
		case ' ':
			out = append(out, Pair{ai, bi})
			ai, bi = ai+1, bi+1
		case '-':
			ai++
		default:
			bi++
		}
	}
	return out
}

// sameAt reports whether the first line of a run of n deletions (kind
// '-', at a[ai]) or insertions (at b[bi]) equals the line after it.
func sameAt[T comparable](a, b []T, kind byte, ai, bi, n int) bool {
	if kind == '-' {
		return a[ai] == a[ai+n]
	}
	return b[bi] == b[bi+n]
}
