package plural

import "testing"

func TestPlural(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Count(0, "task", "tasks"), "0 tasks"},
		{Count(1, "task", "tasks"), "1 task"},
		{Count(2, "file", "files"), "2 files"},
		{Word(1, "was", "were"), "was"},
		{Word(3, "was", "were"), "were"},
		{Ints(nil), ""},
		{Ints([]int{4}), "4"},
		{Ints([]int{1, 2}), "1 and 2"},
		{Ints([]int{1, 2, 3}), "1, 2 and 3"},
		{All(2), "both"},
		{All(3), "all"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
