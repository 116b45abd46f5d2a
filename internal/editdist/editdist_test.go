package editdist

import "testing"

func TestDistances(t *testing.T) {
	for _, tc := range []struct {
		a, b             string
		levenshtein, osa int
	}{
		{"", "", 0, 0},
		{"", "abc", 3, 3},
		{"run", "run", 0, 0},
		{"rnu", "run", 2, 1}, // a swap of neighbours: two edits, or one
		{"run", "ru", 1, 1},
		{"run", "rune", 1, 1},
		{"run", "ran", 1, 1},
		{"rnu", "resume", 4, 4},
		{"ca", "abc", 3, 3}, // OSA edits no part of a swapped pair again
		{"héllo", "hello", 1, 1},
		{"intsrcutoins", "instructions", 6, 3},
		{"kitten", "sitting", 3, 3},
	} {
		a, b := []rune(tc.a), []rune(tc.b)
		for _, pair := range [][2][]rune{{a, b}, {b, a}} {
			if got := Levenshtein(pair[0], pair[1]); got != tc.levenshtein {
				t.Errorf("Levenshtein(%q, %q) = %d; want %d", string(pair[0]), string(pair[1]), got, tc.levenshtein)
			}
			if got := OSA(pair[0], pair[1]); got != tc.osa {
				t.Errorf("OSA(%q, %q) = %d; want %d", string(pair[0]), string(pair[1]), got, tc.osa)
			}
		}
	}
}
