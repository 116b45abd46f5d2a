package cliapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	module    = "github.com/specstack/specstack"
	cliappPkg = module + "/internal/cliapp"
)

// openSpecParity names the types whose own keys are OpenSpec's: the
// documents of jj-openspec's OpenSpec-parity verbs, which print what the
// OpenSpec CLI prints so that tools written for one read the other. Their
// keys may be camelCase; the types inside them are still checked.
var openSpecParity = map[string]string{
	module + "/spec.ChangeSummary":              "openspec list --json: completedTasks, totalTasks, lastModified",
	module + "/internal/openspeccli.jsonChange": "openspec list --json, its change entries",
	module + "/spec.SpecSummary":                "openspec list --specs --json: requirementCount",
	module + "/internal/openspeccli.osArchived": "openspec archive --json, its archive: archivedAs, specsUpdated",
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestEmittedJSONNames type-checks every package of the module that calls
// Emit or WriteJSON, takes the static type of each value it emits (every
// --json document of the three binaries goes through them) and walks it
// as encoding/json does: every key must be snake_case, but for the
// OpenSpec-parity types above. A value whose keys cannot be seen (an
// interface, a custom MarshalJSON of the module) fails the test too.
func TestEmittedJSONNames(t *testing.T) {
	pkgs, byPath := listModule(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		p := byPath[path]
		if p == nil || p.Export == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(p.Export)
	})
	calls := 0
	c := &nameCheck{seen: map[types.Type]bool{}}
	for _, p := range pkgs {
		if p.ImportPath != cliappPkg && !slices.Contains(p.Imports, cliappPkg) {
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-check %s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || !isEmit(info, call.Fun) || len(call.Args) < 2 {
					return true
				}
				if p.ImportPath == cliappPkg && types.IsInterface(info.Types[call.Args[1]].Type) {
					return true // Emit handing its value on to WriteJSON
				}
				calls++
				c.where = fset.Position(call.Pos()).String()
				c.expr(info, call.Args[1], "")
				return true
			})
		}
	}
	t.Logf("checked the values of %d calls", calls)
	if calls < 40 {
		t.Fatalf("found %d calls of Emit and WriteJSON, want the 40 and more the command packages make", calls)
	}
	for _, e := range c.errs {
		t.Error(e)
	}
}

// isEmit reports whether fun is cliapp.Emit or cliapp.WriteJSON.
func isEmit(info *types.Info, fun ast.Expr) bool {
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return false
	}
	fn, ok := info.Uses[id].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == cliappPkg && (fn.Name() == "Emit" || fn.Name() == "WriteJSON")
}

type nameCheck struct {
	where string // the Emit call being checked
	seen  map[types.Type]bool
	errs  []string
}

func (c *nameCheck) errorf(path, format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf("%s: %s: %s", c.where, strings.TrimPrefix(path, "."), fmt.Sprintf(format, args...)))
}

// expr checks an emitted expression: a map literal's constant keys and
// its values' types (map[string]any{"root": dir}), else its type.
func (c *nameCheck) expr(info *types.Info, e ast.Expr, path string) {
	if lit, ok := ast.Unparen(e).(*ast.CompositeLit); ok {
		if m, ok := info.Types[lit].Type.Underlying().(*types.Map); ok && types.IsInterface(m.Elem()) {
			for _, el := range lit.Elts {
				kv := el.(*ast.KeyValueExpr)
				k := info.Types[kv.Key]
				if k.Value == nil || k.Value.Kind() != constant.String {
					c.errorf(path, "a map literal of interface values with a key that is not a constant")
					continue
				}
				name := constant.StringVal(k.Value)
				if !snakeCase.MatchString(name) {
					c.errorf(path+"."+name, "key %q is not snake_case", name)
				}
				c.expr(info, kv.Value, path+"."+name)
			}
			return
		}
	}
	c.typ(info.Types[e].Type, path)
}

var (
	jsonMarshaler = types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, "MarshalJSON",
		types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(
			types.NewParam(token.NoPos, nil, "", types.NewSlice(types.Typ[types.Byte])),
			types.NewParam(token.NoPos, nil, "", types.Universe.Lookup("error").Type())), false))}, nil).Complete()
	textMarshaler = types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, "MarshalText",
		types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(
			types.NewParam(token.NoPos, nil, "", types.NewSlice(types.Typ[types.Byte])),
			types.NewParam(token.NoPos, nil, "", types.Universe.Lookup("error").Type())), false))}, nil).Complete()
)

// typ walks t as encoding/json encodes it.
func (c *nameCheck) typ(t types.Type, path string) {
	if t == nil {
		c.errorf(path, "no type")
		return
	}
	if c.seen[t] {
		return
	}
	c.seen[t] = true
	named, _ := types.Unalias(t).(*types.Named)
	if named != nil && (types.Implements(t, jsonMarshaler) || types.Implements(types.NewPointer(t), jsonMarshaler) ||
		types.Implements(t, textMarshaler) || types.Implements(types.NewPointer(t), textMarshaler)) {
		if obj := named.Obj(); obj.Pkg() != nil && strings.HasPrefix(obj.Pkg().Path(), module) {
			c.errorf(path, "%s marshals itself: its keys cannot be checked", t)
		}
		return // a leaf such as time.Time
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
	case *types.Pointer:
		c.typ(u.Elem(), path)
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); !ok || b.Kind() != types.Byte {
			c.typ(u.Elem(), path+"[]")
		}
	case *types.Array:
		c.typ(u.Elem(), path+"[]")
	case *types.Map:
		c.typ(u.Elem(), path+"[key]") // its keys are data
	case *types.Struct:
		c.fields(named, u, path)
	case *types.Interface:
		c.errorf(path, "a value of interface type %s: its keys cannot be seen; give it a concrete type", t)
	default:
		c.errorf(path, "%s is not JSON", t)
	}
}

// fields checks a struct's keys, promoting those of untagged embedded
// structs as encoding/json does.
func (c *nameCheck) fields(named *types.Named, s *types.Struct, path string) {
	parity := false
	if named != nil && named.Obj().Pkg() != nil {
		_, parity = openSpecParity[named.Obj().Pkg().Path()+"."+named.Obj().Name()]
	}
	for i := range s.NumFields() {
		f := s.Field(i)
		tag, hasTag := reflect.StructTag(s.Tag(i)).Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" {
			continue
		}
		if f.Embedded() && name == "" {
			ft := f.Type()
			if p, ok := ft.Underlying().(*types.Pointer); ok {
				ft = p.Elem()
			}
			if st, ok := ft.Underlying().(*types.Struct); ok {
				n, _ := types.Unalias(ft).(*types.Named)
				c.fields(n, st, path)
				continue
			}
		}
		if !f.Exported() {
			continue
		}
		if name == "" {
			name = f.Name()
			if !hasTag {
				c.errorf(path+"."+name, "field %s has no json tag: its key is the Go name", name)
			}
		}
		if !parity && !snakeCase.MatchString(name) {
			c.errorf(path+"."+name, "key %q is not snake_case", name)
		}
		c.typ(f.Type(), path+"."+name)
	}
}

type listedPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Imports    []string
}

// listModule lists the packages the binaries are built from, with their
// compiled export data (go list -export builds them).
func listModule(t *testing.T) ([]*listedPackage, map[string]*listedPackage) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// go test puts its own toolchain first on PATH.
	cmd := exec.CommandContext(t.Context(), "go", "list", "-e", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Imports", "./cmd/...")
	cmd.Dir = root
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []*listedPackage
	byPath := map[string]*listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		byPath[p.ImportPath] = &p
		if p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/") {
			pkgs = append(pkgs, &p)
		}
	}
	return pkgs, byPath
}
