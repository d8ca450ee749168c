package packaging

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/loomi-lmp/lmpkit"

// TestClusterFuzzLiteBuildsEveryFuzzTarget: .clusterfuzzlite/build.sh
// registers exactly the native fuzz targets `go test -list '^Fuzz' ./...`
// finds, each once. The list is asked of the packages whose test files
// declare a func Fuzz… (found by parsing every test file, whatever its
// build tags): a package that declares none cannot list one, and linking
// the test binary of every other package only to hear that costs a minute
// of CI.
func TestClusterFuzzLiteBuildsEveryFuzzTarget(t *testing.T) {
	registered := map[string]bool{}
	line := regexp.MustCompile(`^compile_native_go_fuzzer\s+(\S+)\s+(\S+)\s+(\S+)\s*$`)
	binaries := map[string]bool{}
	for _, l := range strings.Split(readRepoFile(t, ".clusterfuzzlite/build.sh"), "\n") {
		m := line.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		target := m[1] + " " + m[2]
		if registered[target] || binaries[m[3]] {
			t.Errorf("build.sh registers %s (binary %s) twice", target, m[3])
		}
		registered[target], binaries[m[3]] = true, true
	}

	// Packages whose test files declare a fuzz target.
	declared := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") {
				rel, _ := filepath.Rel(root, filepath.Dir(path))
				declared["./"+filepath.ToSlash(rel)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pkgs := make([]string, 0, len(declared))
	for p := range declared {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	if len(pkgs) == 0 {
		t.Fatal("no test file declares a fuzz target: the walk is broken")
	}

	// `go test -list` prints a package's names, then "ok  <package> <time>".
	found := map[string]bool{}
	var names []string
	for _, l := range strings.Split(goCmd(t, nil, append([]string{"test", "-list", "^Fuzz"}, pkgs...)...), "\n") {
		fields := strings.Fields(l)
		switch {
		case len(fields) == 1 && strings.HasPrefix(fields[0], "Fuzz"):
			names = append(names, fields[0])
		case len(fields) >= 2 && fields[0] == "ok":
			for _, n := range names {
				found[fields[1]+" "+n] = true
			}
			names = nil
		}
	}
	if len(found) == 0 {
		t.Fatalf("go test -list '^Fuzz' %s found no target", strings.Join(pkgs, " "))
	}
	for target := range found {
		if !registered[target] {
			t.Errorf("fuzz target %s is not registered in .clusterfuzzlite/build.sh: add `compile_native_go_fuzzer %s fuzz_…`", target, target)
		}
	}
	for target := range registered {
		if !found[target] {
			t.Errorf(".clusterfuzzlite/build.sh registers %s, which `go test -list '^Fuzz' ./...` does not find", target)
		}
		if !strings.HasPrefix(target, module) {
			t.Errorf(".clusterfuzzlite/build.sh registers %s outside the module %s", target, module)
		}
	}
}
