package selftest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// mutantImports are the packages that describe deliberate bugs: the
// mutant catalogue, and the fault switches it replaced.
var mutantImports = []string{
	"github.com/loomi-lmp/lmpkit/internal/mutant",
	"github.com/loomi-lmp/lmpkit/internal/fault",
}

// TestNoFaultBranches guards the promise that the reference server reads
// as the spec: no shipped file of server/, mockhermes/, reference/ or
// cmd/ imports the mutant catalogue, and server/ and reference/ carry no
// Faults switch (a field, type or selector named Faults). The mock's
// delivery quirks (mockhermes.Faults, reference.Options.HermesQuirks) are
// Hermes' own behaviour, not the server's, and stay.
func TestNoFaultBranches(t *testing.T) {
	for _, dir := range []string{"hermes", "server", "mockhermes", "reference", "cmd"} {
		err := filepath.WalkDir(filepath.Join("../..", dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			noSwitch := dir == "server" || dir == "reference"
			found, err := faultBranches(path, src, noSwitch)
			if err != nil {
				return err
			}
			for _, f := range found {
				t.Errorf("%s: a fault branch in shipped code", f)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestFaultBranchesFinds proves the scan above can fail.
func TestFaultBranchesFinds(t *testing.T) {
	cases := []struct {
		src      string
		noSwitch bool
		want     int
	}{
		{`package p; import "github.com/loomi-lmp/lmpkit/internal/mutant"; var _ = mutant.Catalogue`, false, 1},
		{`package p; import f "github.com/loomi-lmp/lmpkit/internal/fault"; var _ f.Set`, false, 1},
		{`package p; type Config struct{ Faults map[string]bool }`, true, 1},
		{`package p; func g(c struct{ Faults bool }) bool { return c.Faults }`, true, 2},
		{`package p; import "github.com/loomi-lmp/lmpkit/mockhermes"; type O struct{ HermesQuirks mockhermes.Faults }`, true, 0},
		{`package p; type Faults struct{}`, false, 0},
	}
	for _, c := range cases {
		got, err := faultBranches("x.go", []byte(c.src), c.noSwitch)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.want {
			t.Errorf("%d found (%v), want %d, in %s", len(got), got, c.want, c.src)
		}
	}
}

// faultBranches lists where the Go file imports a mutant package and,
// with noSwitch, where it names Faults other than as mockhermes.Faults.
func faultBranches(path string, src []byte, noSwitch bool) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		for _, m := range mutantImports {
			if p == m {
				out = append(out, fset.Position(imp.Pos()).String()+" imports "+p)
			}
		}
	}
	if !noSwitch {
		return out, nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "mockhermes" {
				return false // Hermes' delivery quirks
			}
			if n.Sel.Name == "Faults" {
				out = append(out, fset.Position(n.Sel.Pos()).String()+" uses .Faults")
			}
		case *ast.Field:
			for _, name := range n.Names {
				if name.Name == "Faults" {
					out = append(out, fset.Position(name.Pos()).String()+" declares a Faults field")
				}
			}
		}
		return true
	})
	return out, nil
}
