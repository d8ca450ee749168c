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
	"github.com/loomi-lmp/lmpkit/internal/mutant"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var update = flag.Bool("update", false, "rewrite FAULTS.md from the catalogue")

// minMutants is the least the catalogue must hold.
const minMutants = 40

// TestCatalogue checks the catalogue against the suites, without running
// anything: rule IDs exist, every section label selects specs, and the
// sections hold a spec of at least one of the mutant's rules (else no run
// could catch it on the right rule).
func TestCatalogue(t *testing.T) {
	ms, err := mutant.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < minMutants {
		t.Errorf("the catalogue holds %d mutants, want at least %d", len(ms), minMutants)
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
	for _, m := range ms {
		if err := rules.Validate(m.Rules...); err != nil {
			t.Errorf("mutant %s: %v", m.ID, err)
		}
		for _, sec := range m.Sections {
			if !sections[sec] {
				t.Errorf("mutant %s: no spec is labelled section:%s", m.ID, sec)
			}
			covered[sec] = true
		}
		if len(catchers(specs, m)) == 0 && m.Survives == "" {
			t.Errorf("mutant %s: no spec in sections %v checks any of %v", m.ID, m.Sections, m.Rules)
		}
		if own := ownFieldsOnly(specs, m); own != (m.OwnFields != "") {
			t.Errorf("mutant %s: own_fields %q, but its SHOULD specs say it breaks only our own fields: %v (a strict_only mutant whose every SHOULD spec reads rows' fields, note 21, has own_fields, and no other)", m.ID, m.OwnFields, own)
		}
	}
	// Every section of the protocol has a mutant, but the timing
	// profile's (an observation).
	for sec := range sections {
		if sec != "timing" && !covered[sec] {
			t.Errorf("no mutant exercises section:%s", sec)
		}
	}
}

// catchers are the specs of m's sections that carry one of its rules.
func catchers(specs []check.SpecEntry, m mutant.Mutant) []check.SpecEntry {
	var out []check.SpecEntry
	for _, s := range specs {
		inSection := slices.ContainsFunc(m.Sections, func(sec string) bool { return slices.Contains(s.Labels, "section:"+sec) })
		if inSection && slices.ContainsFunc(s.Rules, func(id string) bool { return slices.Contains(m.Rules, id) }) {
			out = append(out, s)
		}
	}
	return out
}

// ownFieldsOnly derives from the suites whether m breaks only fields of
// ours: it is caught under --strict only, and every SHOULD spec of its
// sections and rules judges fields lmp-v1.md does not define (its text
// names note 21, as "(rows' status, note 21)" does).
func ownFieldsOnly(specs []check.SpecEntry, m mutant.Mutant) bool {
	if m.StrictOnly == "" {
		return false
	}
	should := 0
	for _, s := range catchers(specs, m) {
		if s.Level != "SHOULD" {
			continue
		}
		should++
		if !slices.Contains(notesOf(s.Text), 21) {
			return false
		}
	}
	return should > 0
}

// TestFaultsDoc keeps FAULTS.md equal to what the catalogue and the suites
// generate (go test ./suites/selftest/ -run TestFaultsDoc -update).
func TestFaultsDoc(t *testing.T) {
	ms, err := mutant.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	specs, err := check.Preview("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := mutant.AppCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeFaultsDoc(&buf, ms, specs)
	writeAppFaultsDoc(&buf, app)
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

// writeFaultsDoc writes the catalogue as Markdown: each mutant, the rules
// it breaks, what the mutated server does, where, and the specs that must
// catch it; then the mutants that survive, with the reason.
func writeFaultsDoc(w io.Writer, ms []mutant.Mutant, specs []check.SpecEntry) {
	fmt.Fprint(w, `# Mutant catalogue

Generated from internal/mutant/catalogue.yaml by `+"`go test ./suites/selftest/ -run TestFaultsDoc -update`"+`; do not edit.

Each mutant is a small edit of the reference server's source that breaks one
facet of one rule, applied only at test time as a `+"`go build -overlay`"+`. The
self-test (`+"`go test ./suites/selftest/`"+`, see CI.md) builds lmp-check once per
mutant, so that its in-process server is the mutated one, runs it in its
default mode on the mutant's sections, and requires a failing MUST spec that
carries one of the rule IDs below. Every mutant caught through the wire alone
is checked once more behind the minimal variant (internal/variant: only the
fields lmp-v1.md defines reach lmp-check), built as lmp-server in the same
build: it must be caught there too, so a spec that caught it only through a
field of ours shows. A mutant of our own fields must be hidden there, under
`+"`--strict`"+` too. The shipped server carries no mutant.

| mutant | breaks | sections | the mutated server | edits | specs that must catch it |
|---|---|---|---|---|---|
`)
	var strict, survivors, hermesOnly, hostBound, ownFields, proxyHides []mutant.Mutant
	behindMinimal := 0
	for _, m := range ms {
		if minimalExpectation(m) == Caught {
			behindMinimal++
		}
		if m.OwnFields != "" {
			ownFields = append(ownFields, m)
		}
		if m.ProxyHides != "" {
			proxyHides = append(proxyHides, m)
		}
		if m.NeedsDriver != "" {
			hermesOnly = append(hermesOnly, m)
		}
		if m.NeedsHost != "" {
			hostBound = append(hostBound, m)
		}
		var names []string
		for _, s := range catchers(specs, m) {
			names = append(names, fmt.Sprintf("%s [%s] %s", s.Level, strings.Join(s.Rules, ","), s.Text))
		}
		var files []string
		for _, e := range m.Edits {
			if !slices.Contains(files, e.File) {
				files = append(files, e.File)
			}
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s |\n", m.ID, strings.Join(m.Rules, ", "),
			strings.Join(m.Sections, ", "), mdEscape(m.Does), strings.Join(files, "<br>"), mdEscape(orDash(strings.Join(names, "<br>"))))
		switch {
		case m.StrictOnly != "":
			strict = append(strict, m)
		case m.Survives != "":
			survivors = append(survivors, m)
		}
	}
	caught := len(ms) - len(strict) - len(survivors)
	fmt.Fprintf(w, "\n%d mutants: %d to be caught by default (%.1f %%), %d under --strict only, %d surviving.\n",
		len(ms), caught, 100*float64(caught)/float64(max(len(ms), 1)), len(strict), len(survivors))
	fmt.Fprintf(w, "%d of them to be caught behind the minimal variant too (every one caught through the wire alone, on a host without needs_host).\n", behindMinimal)
	for _, part := range []struct {
		title string
		ms    []mutant.Mutant
		why   func(mutant.Mutant) string
	}{
		{"Caught under --strict only", strict, func(m mutant.Mutant) string { return m.StrictOnly }},
		{"Surviving: no black-box check can catch them", survivors, func(m mutant.Mutant) string { return m.Survives }},
		{"Seen through the driver only: the driverless run (--no-driver --triggers mock) need not catch them", hermesOnly, func(m mutant.Mutant) string { return m.NeedsDriver }},
		{"Our own fields only: the minimal variant strips them, and lmp-check must then see nothing, under --strict too", ownFields, func(m mutant.Mutant) string { return m.OwnFields }},
		{"Taken off the wire by any proxy: not run behind the minimal variant", proxyHides, func(m mutant.Mutant) string { return m.ProxyHides }},
		{"Observable only on a host with a network address: the self-test skips them, and says so, on a host without one", hostBound, hostNeed},
	} {
		if len(part.ms) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n## %s\n\n| mutant | breaks | why |\n|---|---|---|\n", part.title)
		for _, m := range part.ms {
			fmt.Fprintf(w, "| `%s` | %s | %s |\n", m.ID, strings.Join(m.Rules, ", "), mdEscape(part.why(m)))
		}
	}
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// hostNeed says what a needs_host mutant needs of the self-test's host.
func hostNeed(m mutant.Mutant) string {
	switch m.NeedsHost {
	case mutant.PrivateAddress:
		return "an address in a private range (RFC 1918 or fc00::/7): the pairing endpoint is asked from it (suites/lan.go)"
	default:
		return "an address other than loopback: the in-process server listens on every interface and is reached there (suites/lan.go)"
	}
}
