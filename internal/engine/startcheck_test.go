package engine

import "testing"

func TestFirstProgram(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"go test ./...", "go"},
		{"  FOO=1 BAR=x make check", "make"},
		{"/usr/bin/env true", "/usr/bin/env"},
		{"./test.sh", ""},
		{"$TEST", ""},
		{"'go' test", ""},
		{"(cd x && go test)", ""},
		{"cd sub && nosuch", "cd"},
		{"", ""},
		{"FOO=1", ""},
	} {
		if got := firstProgram(c.in); got != c.want {
			t.Errorf("firstProgram(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
