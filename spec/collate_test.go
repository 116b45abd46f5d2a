package spec

import (
	"slices"
	"strings"
	"testing"
)

// TestLocaleOrder: the order OpenSpec 1.13.2's list --specs printed for
// these names (localeCompare under Node's ICU), from any starting order.
// openspec_dropin_sort compares the two tools on the same tree.
func TestLocaleOrder(t *testing.T) {
	want := strings.Split("(x)|~x|✨x|🚀-launch|$x|10-x|9-x|a_b|a-b|a.b|a+b|a1|ab|aB|Ab|API|api-gateway|api-Gateway|"+
		"auth|Auth|auth_v2|auth-v2|auth2|b|cafe|café|e-clair|ecl|ecla|eclair|Eclair|éclair|Éclair|naive|naïve|nu|ñu|"+
		"omega|Ømega|strasse|straße|x y|x_1|x-1|x.1|x1|x10|x2|zeta|zurich|Zürich|αλφα|Ωmega|алфа|한국어|中文|日本語", "|")
	for _, start := range [][]string{want, slices.Sorted(slices.Values(want)), reversed(want)} {
		got := slices.Clone(start)
		SortLocale(got, func(s string) string { return s })
		if !slices.Equal(got, want) {
			t.Fatalf("sorted:\n%q\nwant:\n%q", got, want)
		}
	}
	for _, s := range want {
		k := collationKey(s)
		if compareKeys(k, k, s, s) != 0 {
			t.Errorf("%q does not equal itself", s)
		}
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}
