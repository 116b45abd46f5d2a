package exitcode

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// lowerLayers return typed errors and know nothing of process exit codes:
// the mapping from their errors to the table is Of's, a layer above them.
var lowerLayers = []string{"jjx", "gitx", "stack/ghapi", "internal/ledger", "internal/confine"}

// TestLowerLayersKnowNoExitCodes checks that no package in the
// dependencies of a lower layer (its own non-test files and, within the
// module, everything they import, on every platform) imports this
// package, as `go list -deps` of each would show.
func TestLowerLayersKnowNoExitCodes(t *testing.T) {
	const module = "github.com/specstack/specstack"
	root := filepath.Join("..", "..")
	self := module + "/internal/exitcode"
	fset := token.NewFileSet()
	imports := map[string][]string{} // package → its module-internal imports
	load := func(pkg string) []string {
		if deps, ok := imports[pkg]; ok {
			return deps
		}
		imports[pkg] = nil
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, module+"/")))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("read package %s: %v", pkg, err)
		}
		var deps []string
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if (p == module || strings.HasPrefix(p, module+"/")) && !slices.Contains(deps, p) {
					deps = append(deps, p)
				}
			}
		}
		imports[pkg] = deps
		return deps
	}
	for _, lower := range lowerLayers {
		// Walk breadth-first, remembering how each package was reached
		// so that a failure names the chain of imports.
		via := map[string]string{module + "/" + lower: ""}
		queue := []string{module + "/" + lower}
		for len(queue) > 0 {
			pkg := queue[0]
			queue = queue[1:]
			if pkg == self {
				chain := []string{strings.TrimPrefix(pkg, module+"/")}
				for p := via[pkg]; p != ""; p = via[p] {
					chain = append([]string{strings.TrimPrefix(p, module+"/")}, chain...)
				}
				t.Errorf("%s depends on internal/exitcode (%s): return a typed error and map it in exitcode.Of", lower, strings.Join(chain, " → "))
				break
			}
			for _, dep := range load(pkg) {
				if _, seen := via[dep]; !seen {
					via[dep] = pkg
					queue = append(queue, dep)
				}
			}
		}
	}
	if len(imports) < len(lowerLayers) {
		t.Fatalf("read only %d packages; is the walk rooted at the module?", len(imports))
	}
}
