package suites_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBlackBox enforces that the suites (everything lmp-check links from
// suites/) reach the server only through the wire: they may import lmp,
// schema, client, driver, their own packages, Ginkgo/Gomega and the
// standard library, never server, mockhermes or reference. Of internal/,
// only internal/jsonscan, lmp's scan of JSON text, which knows nothing of
// any server.
func TestBlackBox(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/loomi-lmp/lmpkit/"
	allowed := []string{"lmp", "schema", "client", "driver", "hermes", "suites"}
	for _, pkg := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(pkg, mod)
		if !ok {
			continue
		}
		top, _, _ := strings.Cut(rel, "/")
		ok = rel == "internal/jsonscan"
		for _, a := range allowed {
			ok = ok || top == a
		}
		if !ok {
			t.Errorf("the suites depend on %s: only lmp (with internal/jsonscan), schema, client, driver and hermes are allowed (black-box rule)", pkg)
		}
	}
}
