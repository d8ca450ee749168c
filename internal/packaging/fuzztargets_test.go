package packaging

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/loomi-lmp/lmpkit"

// TestClusterFuzzLiteBuildsEveryFuzzTarget: .clusterfuzzlite/build.sh
// registers exactly the native fuzz targets `go test -list '^Fuzz' ./...`
// finds, each once.
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
	found := fuzzTargets(t)
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

// TestFuzzCIRunsEveryFuzzTarget: fuzz/ci.sh, the short real fuzzing pass
// of the test command, fuzzes exactly the native fuzz targets
// `go test -list '^Fuzz' ./...` finds, each once: a target added without
// it would be fuzzed only by ClusterFuzzLite.
func TestFuzzCIRunsEveryFuzzTarget(t *testing.T) {
	listed := map[string]bool{}
	entry := regexp.MustCompile(`^(\./[A-Za-z0-9_./-]*):(Fuzz[A-Za-z0-9_]*)\s*\\?$`)
	for _, l := range strings.Split(readRepoFile(t, "fuzz/ci.sh"), "\n") {
		m := entry.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		target := module + strings.TrimPrefix(strings.TrimSuffix(m[1], "/"), ".") + " " + m[2]
		if listed[target] {
			t.Errorf("fuzz/ci.sh fuzzes %s twice", target)
		}
		listed[target] = true
	}
	found := fuzzTargets(t)
	for target := range found {
		if !listed[target] {
			pkg, name, _ := strings.Cut(target, " ")
			t.Errorf("fuzz target %s is not in fuzz/ci.sh's list: add `.%s:%s`", target, strings.TrimPrefix(pkg, module), name)
		}
	}
	for target := range listed {
		if !found[target] {
			t.Errorf("fuzz/ci.sh fuzzes %s, which `go test -list '^Fuzz' ./...` does not find", target)
		}
	}
}

// fuzzTargets is every native fuzz target of the module, as "<package
// import path> <name>", from `go test -list '^Fuzz'`, asked once per test
// binary. The list is asked of the packages whose test files declare a
// func Fuzz… (found by parsing every test file, whatever its build tags):
// a package that declares none cannot list one, and linking the test
// binary of every other package only to hear that costs a minute of CI.
func fuzzTargets(t *testing.T) map[string]bool {
	t.Helper()
	found, err := listFuzzTargets()
	if err != nil {
		t.Fatal(err)
	}
	return found
}

var listFuzzTargets = sync.OnceValues(func() (map[string]bool, error) {
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
		return nil, err
	}
	pkgs := make([]string, 0, len(declared))
	for p := range declared {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	if len(pkgs) == 0 {
		return nil, errors.New("no test file declares a fuzz target: the walk is broken")
	}

	// `go test -list` prints a package's names, then "ok  <package> <time>".
	cmd := exec.Command("go", append([]string{"test", "-list", "^Fuzz"}, pkgs...)...)
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go test -list '^Fuzz' %s: %v\n%s%s", strings.Join(pkgs, " "), err, out, stderr.String())
	}
	found := map[string]bool{}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
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
		return nil, fmt.Errorf("go test -list '^Fuzz' %s found no target", strings.Join(pkgs, " "))
	}
	return found, nil
})
