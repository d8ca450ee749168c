package conformance

import (
	"fmt"

	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// SuiteSection is a section of the suites: the part of one section of the
// rules table (rules.Rule.Section) that its specs check. Its Label selects
// it (--label-filter section:<label>); its Title heads it in every report.
type SuiteSection struct {
	Label string
	Title string
	// RulesSection is the rules table's section the title starts with.
	RulesSection string
}

// NewSection declares a section of the suites: label, the rules table's
// section it belongs to, and its topic within it ("" for the whole
// section). A section the rules table does not have is a bug of the
// suites: it panics.
func NewSection(label, rulesSection, topic string) SuiteSection {
	if !hasRulesSection(rulesSection) {
		panic(fmt.Sprintf("conformance.NewSection(%q): the rules table has no section %q", label, rulesSection))
	}
	title := rulesSection
	if topic != "" {
		title += " / " + topic
	}
	return SuiteSection{Label: label, Title: title, RulesSection: rulesSection}
}

func hasRulesSection(name string) bool {
	for _, r := range rules.ServerRules() {
		if r.Section == name {
			return true
		}
	}
	return false
}

// String is the section's title.
func (s SuiteSection) String() string {
	return s.Title
}

// SectionTitles returns each registered section's label and title, in the
// order of registration, for the test that holds them to the rules table.
func SectionTitles() []SuiteSection {
	declareMu.Lock()
	defer declareMu.Unlock()
	var out []SuiteSection
	seen := map[string]bool{}
	for _, s := range sections {
		if !seen[s.Label+"\x00"+s.Title] {
			seen[s.Label+"\x00"+s.Title] = true
			out = append(out, s.SuiteSection)
		}
	}
	return out
}
