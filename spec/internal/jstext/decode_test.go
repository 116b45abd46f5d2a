package jstext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecode(t *testing.T) {
	const r = "\uFFFD"
	// Each want is what Node 22 answers for fs.readFileSync(p, "utf-8")
	// of the bytes in.
	tests := []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"héllo 日本 🚀", "héllo 日本 🚀"},
		{"a\xffb", "a" + r + "b"},
		{"\xff\xff", r + r},
		{"A\xe2\x82A", "A" + r + "A"},       // a truncated sequence is one
		{"\xf0\x90\x80\xed", r + r},         // three bytes of four, then a lone lead
		{"\xed\xa0\x80", r + r + r},         // a surrogate: every byte
		{"\xc0\xaf", r + r},                 // overlong: every byte
		{"\xe0\x80", r + r},                 // E0 needs A0..BF next
		{"\xf4\x90\x80\x80", r + r + r + r}, // past U+10FFFF
		{"\xf1\x80\x80\xe1\x80", r + r},     // two truncated sequences
		{"x\xe1\x80", "x" + r},              // truncated at the end
		{"\xef\xbf\xbd", r},                 // U+FFFD itself stays one
		{"A\xe2\x82A\xff\xff\xf0\x90\x80\xed\xa0\x80\xc0\xaf\xe0\x80\xf4\x90\x80\x80\xf1\x80\x80\xe1\x80",
			"A" + r + "A" + strings.Repeat(r, 16)},
	}
	for _, tt := range tests {
		got := string(Decode([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("Decode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeValidIsSame(t *testing.T) {
	b := []byte("valid text, not copied")
	if got := Decode(b); &got[0] != &b[0] {
		t.Error("Decode copied valid text")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("a\xe2\x82b\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := Decode(b)
		if !utf8.Valid(got) {
			t.Fatalf("Decode(%q) = %q, not UTF-8", b, got)
		}
		if utf8.Valid(b) && string(got) != string(b) {
			t.Fatalf("Decode changed valid %q", b)
		}
	})
}
