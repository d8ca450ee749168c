package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// specRules parses spec/rules.md: one Rule per table row.
func specRules(t *testing.T, path string) []Rule {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile(`^## (§\d+ .*|The app's side .*)$`)
	row := regexp.MustCompile(`^\| ([A-Z]-\d+) \| (\w+) \| (.*) \|\s*$`)
	// The client rules have a fourth column: the server rules they restate.
	appRow := regexp.MustCompile(`^\| (C-\d+) \| (\w+) \| (.*) \| ([^|]*) \|\s*$`)
	var out []Rule
	var sec string
	for _, line := range strings.Split(string(raw), "\n") {
		if m := section.FindStringSubmatch(line); m != nil {
			sec = strings.TrimSpace(m[1])
		}
		if m := appRow.FindStringSubmatch(line); m != nil && sec == AppSection {
			out = append(out, Rule{ID: m[1], Level: Level(m[2]), Section: sec, Text: m[3], From: m[4]})
			continue
		}
		if m := row.FindStringSubmatch(line); m != nil {
			out = append(out, Rule{ID: m[1], Level: Level(m[2]), Section: sec, Text: m[3]})
		}
	}
	return out
}

// TestTableMatchesSpec compares Table with ../shared/spec/rules.md beside
// the module root, when that checkout exists.
func TestTableMatchesSpec(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "spec", "rules.md")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("spec not checked out beside the module (%s): %v", path, err)
	}
	want := specRules(t, path)
	if len(want) == 0 {
		t.Fatalf("%s holds no rule rows", path)
	}
	if len(want) != len(Table) {
		t.Errorf("spec has %d rules, Table has %d", len(want), len(Table))
	}
	for i := range min(len(want), len(Table)) {
		if want[i] != Table[i] {
			t.Errorf("rule %d differs:\n spec:  %+v\n table: %+v", i, want[i], Table[i])
		}
	}
}

func TestTableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Table {
		if !IsID(r.ID) || seen[r.ID] {
			t.Errorf("bad or duplicate ID %q", r.ID)
		}
		seen[r.ID] = true
		if r.Level != MUST && r.Level != SHOULD {
			t.Errorf("%s: level %q", r.ID, r.Level)
		}
	}
	for id := range Uncheckable {
		if _, ok := Lookup(id); !ok {
			t.Errorf("Uncheckable names unknown rule %s", id)
		}
	}
	for id := range PartlyCheckable {
		if _, ok := Lookup(id); !ok {
			t.Errorf("PartlyCheckable names unknown rule %s", id)
		}
	}
	if Validate("T-1", "E-3") != nil || Validate("Z-9") == nil {
		t.Error("Validate misjudges IDs")
	}
}
