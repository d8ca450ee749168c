package suites_test

import (
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/rules"

	_ "github.com/loomi-lmp/lmpkit/suites"
)

// TestSectionTitles holds the suites' section titles to the rules table:
// each starts with one of its sections, and a label has one title, so
// that a report groups a rule's specs under the table's own heading.
func TestSectionTitles(t *testing.T) {
	tableSections := map[string]bool{}
	for _, r := range rules.ServerRules() {
		tableSections[r.Section] = true
	}
	titleOf := map[string]string{}
	got := conformance.SectionTitles()
	if len(got) == 0 {
		t.Fatal("no section registered")
	}
	for _, s := range got {
		if !tableSections[s.RulesSection] || !strings.HasPrefix(s.Title, s.RulesSection) {
			t.Errorf("section %s: title %q does not start with a section of the rules table", s.Label, s.Title)
		}
		if prev, ok := titleOf[s.Label]; ok && prev != s.Title {
			t.Errorf("label section:%s has two titles, %q and %q", s.Label, prev, s.Title)
		}
		titleOf[s.Label] = s.Title
	}
}
