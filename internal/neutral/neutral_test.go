package neutral_test

import (
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/internal/neutral"
)

// TestSuitesAreNeutral requires that no MUST spec of the suites reads, on
// any path, a field, name or code that lmp-v1.md does not define (note 21).
func TestSuitesAreNeutral(t *testing.T) {
	findings, err := neutral.Find("../..", "./suites/...")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}

// TestGuardNamesAMustSpecReadingAnOwnField runs the guard on a MUST spec
// that reads a task row's started_at through a helper: it must name the
// read's file and line and the spec, and leave the SHOULD spec that reads
// the same field alone.
func TestGuardNamesAMustSpecReadingAnOwnField(t *testing.T) {
	findings, err := neutral.Find(".", "./testdata/mustreadsown")
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 2 {
		t.Fatalf("want the two reads of started_at in checkRows, through the MUST spec, got %d:\n%v", len(findings), findings)
	}
	for _, f := range findings {
		msg := f.String()
		for _, want := range []string{"testdata/mustreadsown/spec.go:30", "lmp.Task.StartedAt", "MUST spec \"every task row's started_at is epoch seconds\"", "spec.go:18", "mustreadsown.checkRows"} {
			if !strings.Contains(msg, want) {
				t.Errorf("finding %q does not say %q", msg, want)
			}
		}
	}
}
