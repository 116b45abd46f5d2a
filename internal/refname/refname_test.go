package refname

import (
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/xec"
)

var cases = []struct {
	name string
	rule string // "" when valid
}{
	{"feat/add-export", ""},
	{"feat/a.b_c-d", ""},
	{"feat/ü", ""},
	{"main", ""},
	{"a@b", ""},
	{"", "it is empty"},
	{"@", `it is "@"`},
	{"HEAD", `it is "HEAD"`},
	{"-x", `it starts with "-"`},
	{"feat/", `it ends with "/"`},
	{"/feat", `it starts with "/"`},
	{"feat//x", `it holds "//"`},
	{"feat/.hidden", `a component starts with "."`},
	{".feat/x", `a component starts with "."`},
	{"feat/a.lock", `a component ends with ".lock"`},
	{"a.lock/b", `a component ends with ".lock"`},
	{"feat/x..y", `it holds ".."`},
	{"feat/x@{1}", `it holds "@{"`},
	{"feat/x.", `it ends with "."`},
	{"feat/a b", "it holds a space"},
	{"feat/a~1", `it holds "~"`},
	{"feat/a^", `it holds "^"`},
	{"feat/a:b", `it holds ":"`},
	{"feat/a?", `it holds "?"`},
	{"feat/a*", `it holds "*"`},
	{"feat/a[", `it holds "["`},
	{`feat/a\b`, `it holds "\"`},
	{"feat/a\tb", "it holds a control character"},
	{"feat/a\x7fb", "it holds a control character"},
	{"feat/\xff", "it is not valid UTF-8"},
}

func TestCheck(t *testing.T) {
	for _, c := range cases {
		err := Check(c.name)
		switch {
		case c.rule == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", c.name, err)
		case c.rule != "" && (err == nil || err.Error() != c.rule):
			t.Errorf("Check(%q) = %v, want %q", c.name, err, c.rule)
		}
	}
}

// TestAgreesWithGit holds Check to git's own verdict on every case git
// judges the same way: git takes "@" for HEAD, and allows "HEAD" and "-x"
// as refs (the branch rules refuse them).
func TestAgreesWithGit(t *testing.T) {
	for _, c := range cases {
		if c.name == "" || c.name == "@" || c.name == "HEAD" || strings.HasPrefix(c.name, "-") || c.name == "feat/\xff" {
			continue
		}
		err := xec.Run(t.Context(), xec.Cmd{Name: "git", Args: []string{"check-ref-format", "--branch", c.name}, Timeout: 10 * time.Second})
		if err != nil && xec.ExitCode(err) < 0 {
			t.Fatalf("git check-ref-format --branch %q: %v", c.name, err)
		}
		gitOK := err == nil
		if gitOK != (c.rule == "") {
			t.Errorf("%q: git check-ref-format --branch ok=%v, Check says %q", c.name, gitOK, c.rule)
		}
	}
}
