// Package lazyregexp is a regular expression compiled on first use.
//
// A package-level regexp.MustCompile runs during package initialisation,
// before main, in every start of every binary that links the package,
// whether or not the command uses the pattern: `--version` paid for
// compiling all of them (see cmd/startup_test.go). A lazyregexp.Regexp
// compiles when a method is first called instead.
//
// Under `go test` (a binary named *.test) New compiles at once, so that a
// bad pattern still fails every test of its package, as MustCompile did.
package lazyregexp

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// Regexp is a regular expression compiled by its first use; safe for
// concurrent use. Its methods are those of regexp.Regexp.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns the regular expression expr, to be compiled when first used
// (it panics then, as regexp.MustCompile, when expr is not valid).
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	if inTest {
		r.re()
	}
	return r
}

var inTest = strings.HasSuffix(os.Args[0], ".test")

func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// String returns the source text of the regular expression.
func (r *Regexp) String() string { return r.expr }

func (r *Regexp) Match(b []byte) bool       { return r.re().Match(b) }
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }

func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.re().FindAllStringIndex(s, n) }

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
