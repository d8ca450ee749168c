package schema

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// expectation is one entry of examples/invalid/manifest.yaml.
type expectation struct {
	Schema  string `yaml:"schema"`
	Pointer string `yaml:"pointer"`
	Rule    string `yaml:"rule"`
	Breaks  string `yaml:"breaks"`
}

// corpus lists the example files under examples/<kind>, as paths relative
// to that folder (s2c/run.delta.json).
func corpus(t testing.TB, kind string) []string {
	t.Helper()
	var out []string
	root := os.DirFS(path.Join("examples", kind))
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no examples under examples/%s", kind)
	}
	return out
}

func readExample(t testing.TB, kind, p string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path.Join("examples", kind, p))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func manifest(t testing.TB) map[string]expectation {
	t.Helper()
	raw, err := os.ReadFile("examples/invalid/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]expectation{}
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// validateExample validates an example the way its folder says: frames by
// direction and type, triggers files by triggers.schema, documents by their
// schema (http/qr.json → http/qr,
// variants such as http/qr.extra.json by the part before the first dot).
func validateExample(p string, raw []byte) []Error {
	dir, file := path.Split(p)
	switch dir {
	case "s2c/":
		return ValidateFrame(ServerToClient, raw)
	case "c2s/":
		return ValidateFrame(ClientToServer, raw)
	case "triggers/":
		return ValidateDocument("triggers.schema", raw) // lmp-check --triggers files
	}
	name, _, _ := strings.Cut(file, ".")
	return ValidateDocument(dir+name, raw)
}

func TestValidExamplesAreValid(t *testing.T) {
	for _, p := range corpus(t, "valid") {
		if errs := validateExample(p, readExample(t, "valid", p)); errs != nil {
			t.Errorf("valid/%s: %v", p, errs)
		}
	}
}

func TestInvalidExamplesFailAsLabelled(t *testing.T) {
	want := manifest(t)
	files := corpus(t, "invalid")
	if len(files) != len(want) {
		t.Errorf("%d invalid examples but %d manifest entries", len(files), len(want))
	}
	for _, p := range files {
		exp, ok := want[p]
		if !ok {
			t.Errorf("invalid/%s has no manifest entry saying what it breaks", p)
			continue
		}
		raw := readExample(t, "invalid", p)
		// By direction and type, as a server or app would see it.
		errs := validateExample(p, raw)
		if !names(errs, exp) {
			t.Errorf("invalid/%s (%s): want an error at %q citing %s, got %v", p, exp.Breaks, exp.Pointer, exp.Rule, errs)
		}
		// And against the schema the manifest names.
		if errs := ValidateDocument(exp.Schema, raw); !names(errs, exp) {
			t.Errorf("invalid/%s against %s: want an error at %q citing %s, got %v", p, exp.Schema, exp.Pointer, exp.Rule, errs)
		}
	}
}

func names(errs []Error, exp expectation) bool {
	for _, e := range errs {
		if e.Pointer == exp.Pointer && e.Rule == exp.Rule {
			return true
		}
	}
	return false
}
