package check

import (
	"testing"
	"unicode/utf8"
)

// maxTitle is the longest a spec's title may be, in characters: the title
// states the requirement; the detail (what was expected, what came
// instead) goes into the failure text.
const maxTitle = 100

// TestSpecTitlesAreShort fails on a spec whose title is over maxTitle
// characters, so that every report lists a requirement on one line.
func TestSpecTitlesAreShort(t *testing.T) {
	specs, err := Preview("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if n := utf8.RuneCountInString(s.Text); n > maxTitle {
			t.Errorf("%s [%s]: the title is %d characters, over %d; the detail belongs in the failure text:\n\t%s", s.Section, s.Level, n, maxTitle, s.Text)
		}
	}
}
