package ledger

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCommandsTakeNoLock enforces that one layer takes the ledger lock:
// the workflow, never the command package that parses flags and renders.
// No non-test file of a command package calls Acquire.
func TestCommandsTakeNoLock(t *testing.T) {
	const self = "github.com/specstack/specstack/internal/ledger"
	fset := token.NewFileSet()
	var checked int
	for _, pkg := range []string{"kaisencli", "openspeccli", "stackcli"} {
		dir := filepath.Join("..", pkg)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			file := filepath.Join(dir, name)
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			local := ""
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == self {
					local = path.Base(p)
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == local && n.Sel.Name == "Acquire" {
						t.Errorf("%s: %s.Acquire in a command package: the workflow takes the ledger lock; call it instead", fset.Position(n.Pos()), local)
					}
				case *ast.Ident:
					if local == "." && n.Name == "Acquire" {
						t.Errorf("%s: Acquire (dot-imported ledger) in a command package: the workflow takes the ledger lock; call it instead", fset.Position(n.Pos()))
					}
				}
				return true
			})
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d files; are the command packages where the walk looks?", checked)
	}
}

// TestWorkflowsLockOnce enforces that per ledger one layer takes the
// lock: a workflow package (internal/workflow/*, internal/specwrite)
// acquires its ledger's lock itself and hands it to the engine
// (engine.OpenHeld, engine.ReserveHeld); it never calls engine.Open or
// engine.Reserve, which would take the same lock a second time, in the
// engine's layer.
func TestWorkflowsLockOnce(t *testing.T) {
	const engine = "github.com/specstack/specstack/internal/engine"
	dirs := []string{filepath.Join("..", "specwrite")}
	wfs, err := os.ReadDir(filepath.Join("..", "workflow"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range wfs {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join("..", "workflow", e.Name()))
		}
	}
	fset := token.NewFileSet()
	var checked int
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			file := filepath.Join(dir, name)
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			local := ""
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == engine {
					local = path.Base(p)
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := s.X.(*ast.Ident); ok && x.Name == local && (s.Sel.Name == "Open" || s.Sel.Name == "Reserve") {
						t.Errorf("%s: %s.%s locks the ledger in the engine's layer: the workflow takes the lock (Acquire) and hands it to %s.%sHeld", fset.Position(s.Pos()), local, s.Sel.Name, local, s.Sel.Name)
					}
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d files; are the workflow packages where the walk looks?", checked)
	}
}
