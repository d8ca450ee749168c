package selftest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/fault"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var update = flag.Bool("update", false, "rewrite FAULTS.md from the catalogue")

// minFaults is the least the catalogue must hold.
const minFaults = 30

// TestCatalogue checks the catalogue against the suites, without running
// anything: names are unique, rule IDs exist, every section label selects
// specs, and the sections hold a spec of at least one of the fault's rules
// (else no run could catch it on the right rule).
func TestCatalogue(t *testing.T) {
	if len(fault.Catalogue) < minFaults {
		t.Errorf("the catalogue holds %d faults, want at least %d", len(fault.Catalogue), minFaults)
	}
	specs, err := check.Preview("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for _, s := range specs {
		for _, l := range s.Labels {
			if name, ok := strings.CutPrefix(l, "section:"); ok {
				sections[name] = true
			}
		}
	}
	covered := map[string]bool{}
	seen := map[fault.Name]bool{}
	for _, f := range fault.Catalogue {
		if seen[f.Name] {
			t.Errorf("fault %s is listed twice", f.Name)
		}
		seen[f.Name] = true
		if got, ok := fault.Lookup(f.Name); !ok || got.Name != f.Name {
			t.Errorf("Lookup(%s) does not find it", f.Name)
		}
		if f.Does == "" || len(f.Rules) == 0 || len(f.Sections) == 0 {
			t.Errorf("fault %s: Rules, Sections and Does are required", f.Name)
		}
		if err := rules.Validate(f.Rules...); err != nil {
			t.Errorf("fault %s: %v", f.Name, err)
		}
		for _, sec := range f.Sections {
			if !sections[sec] {
				t.Errorf("fault %s: no spec is labelled section:%s", f.Name, sec)
			}
			covered[sec] = true
		}
		if len(catchers(specs, f)) == 0 {
			t.Errorf("fault %s: no spec in sections %v checks any of %v", f.Name, f.Sections, f.Rules)
		}
	}
	// Every section of the protocol (all but the timing profile) has a fault.
	for sec := range sections {
		if sec != "timing" && !covered[sec] {
			t.Errorf("no fault exercises section:%s", sec)
		}
	}
}

// catchers are the specs of f's sections that carry one of its rules.
func catchers(specs []check.SpecEntry, f fault.Fault) []check.SpecEntry {
	var out []check.SpecEntry
	for _, s := range specs {
		inSection := slices.ContainsFunc(f.Sections, func(sec string) bool { return slices.Contains(s.Labels, "section:"+sec) })
		if inSection && slices.ContainsFunc(s.Rules, func(id string) bool { return slices.Contains(f.Rules, id) }) {
			out = append(out, s)
		}
	}
	return out
}

// TestFaultsDoc keeps FAULTS.md equal to what the catalogue and the suites
// generate (go test ./suites/selftest/ -run TestFaultsDoc -update).
func TestFaultsDoc(t *testing.T) {
	specs, err := check.Preview("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeFaultsDoc(&buf, specs)
	if *update {
		if err := os.WriteFile("FAULTS.md", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("FAULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, buf.Bytes()) {
		t.Error("suites/selftest/FAULTS.md is stale: regenerate with go test ./suites/selftest/ -run TestFaultsDoc -update")
	}
}

// writeFaultsDoc writes the catalogue as Markdown: each fault, the rules it
// breaks, what the faulty server does, and the specs that must catch it.
func writeFaultsDoc(w io.Writer, specs []check.SpecEntry) {
	fmt.Fprint(w, `# Fault catalogue

Generated from internal/fault by `+"`go test ./suites/selftest/ -run TestFaultsDoc -update`"+`; do not edit.

Each fault is a variant of the reference server that breaks one rule. The
self-test (`+"`go test ./suites/selftest/`"+`, see CI.md) runs lmp-check against a
server committing each fault, limited to the fault's sections, and requires a
failing spec that carries one of the rule IDs below. No flag of lmp-server can
turn a fault on.

| fault | breaks | sections | the faulty server | specs that must catch it |
|---|---|---|---|---|
`)
	for _, f := range fault.Catalogue {
		var names []string
		for _, s := range catchers(specs, f) {
			names = append(names, fmt.Sprintf("%s [%s] %s", s.Level, strings.Join(s.Rules, ","), s.Text))
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", f.Name, strings.Join(f.Rules, ", "),
			strings.Join(f.Sections, ", "), mdEscape(f.Does), mdEscape(strings.Join(names, "<br>")))
	}
	fmt.Fprintf(w, "\n%d faults.\n", len(fault.Catalogue))
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// TestServerFlagsCommitNoFault guards the promise that the shipped binary
// cannot turn a fault on: cmd/lmp-server never imports the fault package,
// so none of its flags can build a fault set (TestOnlyTestsSwitchFaultsOn
// covers every other shipped package). Its other "faults" (mock Hermes'
// delivery quirks, --hermes-quirks) are Hermes' behaviour, not the server's.
func TestServerFlagsCommitNoFault(t *testing.T) {
	const dir = "../../cmd/lmp-server"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		src, err := os.ReadFile(dir + "/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte(faultImport)) {
			t.Errorf("%s/%s imports %s", dir, e.Name(), faultImport)
		}
	}
}
