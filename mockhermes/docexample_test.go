package mockhermes

import (
	"os"
	"strings"
	"testing"
)

// TestDocsScriptExamplesLoad keeps docs/scenarios.md honest: every YAML
// example in it is a script the mock loads.
func TestDocsScriptExamplesLoad(t *testing.T) {
	const doc = "../docs/scenarios.md"
	raw, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, part := range strings.Split(string(raw), "```yaml\n")[1:] {
		end := strings.Index(part, "\n```")
		if end < 0 {
			t.Fatalf("%s: YAML example %d is not closed", doc, i+1)
		}
		if _, err := ParseScenario(doc, []byte(part[:end+1])); err != nil {
			t.Errorf("%s: YAML example %d does not load:\n%v", doc, i+1, err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("%s has no YAML example", doc)
	}
}
