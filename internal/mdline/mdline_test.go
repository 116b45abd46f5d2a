package mdline

import (
	"slices"
	"strings"
	"testing"
)

func blank(r rune) bool { return r == ' ' || r == '\t' }

func TestFenceMask(t *testing.T) {
	f := Fence{Indent: blank, MaxIndent: 3, Closes: func(rest string) bool { return strings.TrimSpace(rest) == "" }}
	lines := []string{
		"text",
		"   ```go", // opens: three blanks at most
		"~~~",      // another character does not close
		"``",       // too short to close
		"```` x",   // text after the run does not close
		"````",     // closes: as long or longer
		"    ```",  // four blanks: no fence
		"~~~~",
		"~~~~ ", // trailing blanks may follow a closer
		"after",
	}
	want := []bool{false, true, true, true, true, true, false, true, true, false}
	if got := f.Mask(lines); !slices.Equal(got, want) {
		t.Errorf("Mask = %v, want %v", got, want)
	}
}

func TestListMarker(t *testing.T) {
	l := List{Space: blank, MaxDigits: 9}
	tests := []struct {
		line          string
		indent, after int
		ok            bool
	}{
		{"- a", 0, 1, true},
		{"  * a", 2, 3, true},
		{"\t+", 1, 2, true},
		{"12. a", 0, 3, true},
		{" 3) a", 1, 3, true},
		{"123456789. a", 0, 10, true},
		{"1234567890. a", 0, 0, false},
		{"1 a", 0, 0, false},
		{"a. b", 0, 0, false},
		{"   ", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		indent, after, ok := l.Marker(tt.line)
		if indent != tt.indent || after != tt.after || ok != tt.ok {
			t.Errorf("Marker(%q) = %d, %d, %v; want %d, %d, %v", tt.line, indent, after, ok, tt.indent, tt.after, tt.ok)
		}
	}
	if _, _, ok := (List{Space: blank, MaxDigits: 0}).Marker("1. x"); ok {
		t.Errorf("MaxDigits 0 read an ordered item")
	}
	if _, after, ok := (List{Space: blank, MaxDigits: -1}).Marker("1234567890) x"); !ok || after != 11 {
		t.Errorf("any number of digits: after %d, ok %v", after, ok)
	}
}
