package fuzz

import (
	"os"
	"path/filepath"
	"testing"
)

// examples returns the schema example files under schema/examples/<kind>/<dir>
// (kind valid or invalid), the seeds of every corpus here.
func examples(t testing.TB, kind, dir string) [][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "schema", "examples", kind, dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}
