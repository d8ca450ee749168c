package check

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestMatrix fails when a rule has no spec and no reason it cannot be
// checked, when a spec names an unknown rule, or when suites/MATRIX.md is
// stale (regenerate: go run ./cmd/lmp-check rules --markdown > suites/MATRIX.md).
func TestMatrix(t *testing.T) {
	specs, err := Preview("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) < 40 {
		t.Fatalf("only %d specs found", len(specs))
	}
	m := BuildMatrix(specs)
	for _, p := range m.Problems() {
		t.Error(p)
	}
	var buf bytes.Buffer
	m.WriteMarkdown(&buf)
	path := filepath.Join("..", "suites", "MATRIX.md")
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, buf.Bytes()) {
		t.Errorf("%s is stale: regenerate with go run ./cmd/lmp-check rules --markdown > suites/MATRIX.md", path)
	}
}
