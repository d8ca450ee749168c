package check

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
	m := BuildMatrix(append(specs, AppSpecs()...))
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

// TestNeedsTableIsCurrent fails when CI.md's rule → needs table no longer
// matches the specs' labels (regenerate: go run ./cmd/lmp-check rules
// --needs, and paste it between the markers).
func TestNeedsTableIsCurrent(t *testing.T) {
	specs, err := Preview("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	BuildMatrix(specs).WriteNeeds(&buf)
	doc, err := os.ReadFile(filepath.Join("..", "CI.md"))
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(NeedsBegin)), bytes.Index(doc, []byte(NeedsEnd))
	if i < 0 || j < i {
		t.Fatalf("CI.md has no rule → needs table between %q and %q", NeedsBegin, NeedsEnd)
	}
	if have := doc[i : j+len(NeedsEnd)+1]; !bytes.Equal(have, buf.Bytes()) {
		t.Errorf("CI.md's rule → needs table is stale: regenerate with go run ./cmd/lmp-check rules --needs")
	}
	// Every need shows up in the table: a label renamed in the suites
	// would silently empty a column.
	for _, n := range Needs {
		col := slices.Index(Needs, n)
		found := false
		for _, line := range strings.Split(buf.String(), "\n") {
			cells := strings.Split(line, " | ")
			if strings.HasPrefix(line, "| ") && len(cells) == len(Needs)+2 && regexp.MustCompile(`^\d+$`).MatchString(strings.TrimSuffix(cells[col+2], " |")) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no rule has a spec that needs %s", n)
		}
	}
}
