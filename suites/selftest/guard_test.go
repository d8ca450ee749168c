package selftest

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

const faultImport = "github.com/loomi-lmp/lmpkit/internal/fault"

// TestOnlyTestsSwitchFaultsOn guards the promise that shipped code cannot
// commit a fault: fault.Of is the only way to build a non-empty fault.Set,
// so no non-test file outside internal/fault may call it. Shipped packages
// may pass a Set through (server.Config, reference.Options), never fill one.
func TestOnlyTestsSwitchFaultsOn(t *testing.T) {
	const root = "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			if filepath.ToSlash(path) == root+"/internal/fault" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		calls, err := faultSwitches(path, nil)
		if err != nil {
			return err
		}
		for _, c := range calls {
			t.Errorf("%s switches a fault on in shipped code", c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFaultSwitchesFinds proves the scan above can fail: it finds fault.Of
// under any import name, and nothing in a file that only passes a Set on.
func TestFaultSwitchesFinds(t *testing.T) {
	cases := []struct {
		src  string
		want int
	}{
		{`package p; import "` + faultImport + `"; var s = fault.Of(fault.TokenReusable)`, 1},
		{`package p; import f "` + faultImport + `"; func g() f.Set { return f.Of("x") }`, 1},
		{`package p; import "` + faultImport + `"; type C struct{ Faults fault.Set }; func (c C) On() bool { return !c.Faults.Empty() }`, 0},
		{`package p; type o struct{}; func (o) Of() {}; var x o; func g() { x.Of() }`, 0},
	}
	for _, c := range cases {
		got, err := faultSwitches("x.go", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.want {
			t.Errorf("%d calls found, want %d, in %s", len(got), c.want, c.src)
		}
	}
}

// faultSwitches lists the positions where the Go file at path (or src, when
// not nil) calls Of of the fault package.
func faultSwitches(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	var source any
	if src != nil {
		source = src
	}
	f, err := parser.ParseFile(fset, path, source, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == faultImport {
			name = "fault"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return nil, nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Of" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
				out = append(out, fset.Position(sel.Pos()).String())
			}
		}
		return true
	})
	return out, nil
}
