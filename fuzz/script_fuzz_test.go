package fuzz

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/mockhermes"
)

// FuzzMockScript attacks the mock Hermes scenario parser with arbitrary
// YAML: it must never panic, and must either return a scenario with a
// name and steps or an error that says where the problem is, in one line
// per problem.
func FuzzMockScript(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "mockhermes", "scenarios", "*.yaml"))
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte("name: x\nsteps:\n  - repeat: 100001\n    steps: [{stream: a}]\n"))
	f.Add([]byte("name: x\nsteps:\n  - stream: ${nope}\n    chunk: -1\n"))
	f.Add([]byte("&a [*a, *a]"))
	f.Fuzz(func(t *testing.T, src []byte) {
		sc, err := mockhermes.ParseScenario("fuzz.yaml", src)
		if err != nil {
			msg := err.Error()
			if msg == "" {
				t.Fatal("empty error")
			}
			if !strings.Contains(msg, "fuzz.yaml") {
				t.Fatalf("error does not name the file: %q", msg)
			}
			return
		}
		if sc == nil || sc.Name == "" {
			t.Fatalf("no error and no named scenario: %+v", sc)
		}
	})
}
