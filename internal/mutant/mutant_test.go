package mutant

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

func TestReplace(t *testing.T) {
	src := []byte("func f() {\n\tif a &&\n\t\tb {\n\t\treturn\n\t}\n\tx := 1\n\tx := 1\n}\n")
	got, err := Replace(src, "if a && b {\n  return", "if false {\n\treturn")
	if err != nil {
		t.Fatal(err)
	}
	if want := "func f() {\n\tif false {\n\treturn\n\t}\n\tx := 1\n\tx := 1\n}\n"; string(got) != want {
		t.Errorf("Replace = %q, want %q", got, want)
	}
	if _, err := Replace(src, "x := 1", "x := 2"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("a snippet found twice: %v, want ErrAmbiguous", err)
	}
	if _, err := Replace(src, "y := 1", "y := 2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing snippet: %v, want ErrNotFound", err)
	}
	if _, err := Replace(src, " \n ", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a blank snippet: %v, want ErrNotFound", err)
	}
}

// TestEveryMutantApplies: each edit's snippet occurs exactly once in the
// clean source (after the mutant's earlier edits), and changes it. A
// failure names the mutant whose anchor moved: fix its find (and replace)
// to the new code, keeping what the mutant breaks.
func TestEveryMutantApplies(t *testing.T) {
	ms := bothCatalogues(t)
	for _, m := range ms {
		files, err := m.Files(root)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, e := range m.Edits {
			if strings.Join(strings.Fields(e.Find), " ") == strings.Join(strings.Fields(e.Replace), " ") {
				t.Errorf("mutant %s: an edit of %s changes nothing", m.ID, e.File)
			}
			if !strings.HasSuffix(e.File, ".go") || strings.HasSuffix(e.File, "_test.go") {
				t.Errorf("mutant %s: edits %s; mutants edit shipped Go files only", m.ID, e.File)
			}
		}
		if len(files) == 0 {
			t.Errorf("mutant %s changes no file", m.ID)
		}
	}
}

// TestEveryMutantCompiles type-checks, with go/types, every package each
// mutant edits, with the mutant's files in place of the clean ones: a
// mutant that does not compile proves nothing. It only type-checks (the
// self-test builds every mutant's lmp-check anyway, and a build failure
// there names the mutant too); imports are read from the export data of
// the clean packages, which go list -export builds once.
func TestEveryMutantCompiles(t *testing.T) {
	ms := bothCatalogues(t)
	var dirs []string
	for _, m := range ms {
		for _, e := range m.Edits {
			if d := "./" + path.Dir(e.File); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	pkgs, err := listPackages(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if err := typeCheck(m, pkgs); err != nil {
			t.Error(err)
		}
	}
}

// listedPackage is what go list says of a package.
type listedPackage struct {
	Dir, ImportPath, Export string
	GoFiles                 []string
	Standard                bool
}

// packageSet is the packages mutants edit, by directory from the module
// root, and the export data of everything they import, by import path.
type packageSet struct {
	edited map[string]listedPackage
	export map[string]string
}

func listPackages(dirs []string) (packageSet, error) {
	set := packageSet{edited: map[string]listedPackage{}, export: map[string]string{}}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return set, err
	}
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-json=Dir,ImportPath,Export,GoFiles,Standard"}, dirs...)...)
	cmd.Dir = absRoot
	out, err := cmd.Output()
	if err != nil {
		return set, fmt.Errorf("go list -export: %v", err)
	}
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return set, err
		}
		set.export[p.ImportPath] = p.Export
		if rel, err := filepath.Rel(absRoot, p.Dir); err == nil && !p.Standard && slices.Contains(dirs, "./"+filepath.ToSlash(rel)) {
			set.edited[filepath.ToSlash(rel)] = p
		}
	}
	return set, nil
}

// typeCheck type-checks each package m edits with its mutated files.
func typeCheck(m Mutant, set packageSet) error {
	files, err := m.Files(root)
	if err != nil {
		return err
	}
	byDir := map[string]bool{}
	for f := range files {
		byDir[path.Dir(f)] = true
	}
	for dir := range byDir {
		p, ok := set.edited[dir]
		if !ok {
			return fmt.Errorf("mutant %s: go list does not know the package in %s", m.ID, dir)
		}
		fset := token.NewFileSet()
		var syntax []*ast.File
		for _, name := range p.GoFiles {
			src, ok := files[dir+"/"+name]
			if !ok {
				if src, err = os.ReadFile(filepath.Join(p.Dir, name)); err != nil {
					return err
				}
			}
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), src, parser.SkipObjectResolution)
			if err != nil {
				return &buildError{m.ID, err.Error()}
			}
			syntax = append(syntax, f)
		}
		var errs []string
		conf := types.Config{
			Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
				if set.export[path] == "" {
					return nil, fmt.Errorf("no export data for %s", path)
				}
				return os.Open(set.export[path])
			}),
			Error: func(err error) { errs = append(errs, err.Error()) },
		}
		conf.Check(p.ImportPath, fset, syntax, nil)
		if len(errs) > 0 {
			return &buildError{m.ID, strings.Join(errs, "\n")}
		}
	}
	return nil
}

type buildError struct{ id, out string }

func (e *buildError) Error() string { return "mutant " + e.id + " does not compile:\n" + e.out }

// bothCatalogues is the server's mutants, then the app client's.
func bothCatalogues(t *testing.T) []Mutant {
	t.Helper()
	ms, err := Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	app, err := AppCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	return append(ms, app...)
}
