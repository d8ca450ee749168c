package mutant

import (
	"errors"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	ms, err := Catalogue()
	if err != nil {
		t.Fatal(err)
	}
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

// TestEveryMutantCompiles builds the packages each mutant edits with its
// overlay (two at a time): a mutant that does not compile proves nothing.
func TestEveryMutantCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every mutant")
	}
	ms, err := Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := build(m, t.TempDir()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func build(m Mutant, dir string) error {
	ov, err := m.Overlay(root, dir)
	if err != nil {
		return err
	}
	var pkgs []string
	for _, e := range m.Edits {
		if p := "./" + path.Dir(e.File); !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	cmd := exec.Command("go", append([]string{"build", "-overlay", ov}, pkgs...)...)
	cmd.Dir, _ = filepath.Abs(root)
	if out, err := cmd.CombinedOutput(); err != nil {
		return &buildError{m.ID, string(out)}
	}
	return nil
}

type buildError struct{ id, out string }

func (e *buildError) Error() string { return "mutant " + e.id + " does not compile:\n" + e.out }
