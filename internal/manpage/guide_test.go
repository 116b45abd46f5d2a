package manpage

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/xec"
)

// TestGuidesRender renders every guide with groff as man(1) does (tbl,
// the man macros) with every warning on: a guide that renders with a
// warning, or not at all, fails.
func TestGuidesRender(t *testing.T) {
	groff, err := xec.LookPath("groff")
	if err != nil {
		if os.Getenv("REQUIRE_JJ") != "" {
			t.Fatal("groff is not on PATH (Debian: apt install groff-base); CI renders every guide with it")
		}
		t.Skip("groff is not on PATH")
	}
	guides, err := Guides()
	if err != nil {
		t.Fatal(err)
	}
	for name, page := range guides {
		var stderr bytes.Buffer
		if err := xec.Run(t.Context(), xec.Cmd{Name: groff, Args: []string{"-ww", "-z", "-t", "-man"}, Stdin: strings.NewReader(page), Stderr: &stderr}); err != nil {
			t.Errorf("%s: groff: %v\n%s", name, err, stderr.String())
			continue
		}
		if stderr.Len() > 0 {
			t.Errorf("%s: groff -ww warns:\n%s", name, stderr.String())
		}
		if !strings.Contains(page, ".SH NAME\n"+escape(strings.TrimSuffix(name, ".7"))+` \- `) {
			t.Errorf("%s has no NAME line", name)
		}
	}
}

// TestRenderGuide shows each construct of the guides' Markdown and what it
// becomes, and that anything else is refused.
func TestRenderGuide(t *testing.T) {
	src := "# g - a guide\n\n## First steps\n\nSome `code -x` and **strong** and *emphasis*,\nwith a [link](man/x.1) → there.\n\n" +
		"### Sub\n\n#### Para heading\n\n```sh\n.dot -flag \\\\ back\n```\n\n- one\n  more\n1. first\n\n| a | b |\n|---|---|\n| `x \\| y` | z |\n"
	got, err := renderGuide("g", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		".TH g 7\n", ".SH NAME\ng \\- a guide\n", ".SH FIRST STEPS\n",
		".PP\nSome \\fBcode \\-x\\fR and \\fBstrong\\fR and \\fIemphasis\\fR, with a link \\[u2192] there.\n",
		".SS Sub\n", ".PP\n\\fBPara heading\\fR\n",
		".EX\n\\&.dot \\-flag \\e\\e back\n.EE\n",
		".IP \\(bu 4\none more\n", ".IP 1. 4\nfirst\n",
		".TS\nallbox tab(\t);\nlb lb\nlx lx.\nT{\na\nT}\tT{\nb\nT}\nT{\n\\fBx | y\\fR\nT}\tT{\nz\nT}\n.TE\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered guide lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{
		"# g - x\n\n  ```\nan indented fence outside a list item\n  ```\n",
		"# g - x\n\n- item\n\n  ```\n  in\nout\n  ```\n",
		"no title\n",
		"# other - wrong name\n",
		"# g - x\n\n```sh\nnever closed\n",
		"# g - x\n\n##### too deep\n",
		"# g - x\n\n| a | b |\n| c | d |\n",
		"# g - x\n\n| a | b |\n|---|---|\n| c |\n",
	} {
		if _, err := renderGuide("g", bad); err == nil {
			t.Errorf("renderGuide(%q) = nil error, want a refusal", bad)
		}
	}
}

// TestRenderGuideListItemBlocks: a fenced block and a paragraph indented
// under a list item after a blank line belong to that item, as in
// Markdown: the block is a no-fill block with the fence's indentation
// removed (not filled text with its backticks), the paragraph continues
// the item.
func TestRenderGuideListItemBlocks(t *testing.T) {
	src := "# g - a guide\n\n- **init** `[PATH]`: lays it out.\n\n  ```console\n  $ jj openspec init\n    created `x`\n  ```\n\n  More of the item.\n- next\n\nAfter the list.\n"
	got, err := renderGuide("g", src)
	if err != nil {
		t.Fatal(err)
	}
	want := ".IP \\(bu 4\n\\fBinit\\fR \\fB[PATH]\\fR: lays it out.\n" +
		".PP\n.RS 8\n.EX\n$ jj openspec init\n  created `x`\n.EE\n.RE\n" +
		".IP \"\" 4\nMore of the item.\n" +
		".IP \\(bu 4\nnext\n" +
		".PP\nAfter the list.\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("rendered guide ends\n%s\nwant it to end\n%s", got, want)
	}
}

// TestRenderGuideGlyphFallback: a character some groff devices lack gets
// a fallback defined, only on a page that uses it (TestGuidesRender then
// renders it without a warning).
func TestRenderGuideGlyphFallback(t *testing.T) {
	const def = ".if !c\\[u2716] .char \\[u2716] \\[mu]\n"
	got, err := renderGuide("g", "# g - a guide\n\n```\n\u2716 Error: no\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, ".ad l\n"+def) || !strings.Contains(got, "\\[u2716] Error: no\n") {
		t.Errorf("the page lacks the fallback or the character:\n%s", got)
	}
	if got, _ := renderGuide("g", "# g - a guide\n\nplain\n"); strings.Contains(got, ".char") {
		t.Errorf("a page without the character defines it:\n%s", got)
	}
}
