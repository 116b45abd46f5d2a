package jjx

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRevsetBuilders(t *testing.T) {
	for got, want := range map[string]string{
		Union():                              "none()",
		Union("kkkk", "abc1"):                `change_id("kkkk")|commit_id("abc1")`,
		PresentUnion("kkkk"):                 `present(change_id("kkkk"))`,
		Range(Union("kkkk"), "@"):            `(change_id("kkkk"))..(@)`,
		AncestorsNotOf(ID("abc"), ID("def")): `::(commit_id("abc")) ~ ::(commit_id("def"))`,
		RootsTouching("x", `a "b"`):          `roots((x) & files(root:"a \"b\""))`,
		LatestDescribed("x", `Task 1: "q"`):  `latest(descendants(x) & description(substring:"Task 1: \"q\""))`,
		CommitInRange("ab12", "x", "y"):      `present(commit_id("ab12")) & (x)..(y)`,
		WorkspaceHead(`ws"1`):                `present("ws\"1"@)`,
		DAGRange("a", "b"):                   `(a)::(b)`,
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// TestNoRevsetTextOutsideJJX: revset expressions are built by this
// package's functions only; a string literal elsewhere that holds revset
// operators or functions is text assembled by hand.
func TestNoRevsetTextOutsideJJX(t *testing.T) {
	markers := []string{"::", "..@", ")..", "present(", "descendants(", "ancestors(", "roots(", "latest(", "change_id(", "commit_id(", "files(root:"}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "jjx", "testdata", ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			// A revset operator alone appended to an expression (a + ".."
			// + b) is a range assembled by hand; a path's ".." (compared,
			// or followed by a separator) is not.
			if bin, ok := n.(*ast.BinaryExpr); ok && bin.Op == token.ADD {
				l, ok := bin.Y.(*ast.BasicLit)
				if _, lit := bin.X.(*ast.BasicLit); ok && !lit && l.Kind == token.STRING && (l.Value == `".."` || l.Value == `"::"`) {
					t.Errorf("%s: %s appended into a revset: build it with a jjx function (Range, DAGRange)", fset.Position(l.Pos()), l.Value)
				}
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, m := range markers {
				if strings.Contains(s, m) && !prose(s) {
					t.Errorf("%s: %q holds revset text (%s): build it with a jjx function", fset.Position(lit.Pos()), s, m)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// prose reports a string that is not passed to jj as a revset: a message
// for people (several words, or lines: help text naming "::@"), a regular
// expression, or an address list ("::1" is IPv6 loopback).
func prose(s string) bool {
	return strings.Contains(s, "\n") || strings.Count(s, " ") >= 3 || strings.HasPrefix(s, "^") || strings.Contains(s, "localhost")
}
