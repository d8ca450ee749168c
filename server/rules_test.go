package server_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// unenforced lists the rules that no single place in the reference server
// makes true, each with the reason. They carry no Enforces marker.
var unenforced = map[string]string{
	"F-1": "no single site: every payload is a typed struct of package lmp with its enums as lmp constants, filled by the mapping of its source (turns.go, runs.go, notify.go, approvals.go)",
	"S-1": "no single site: every log line names secrets only through lmp.Fingerprint and the store keeps hashes; the suites scan the server's log for them",
	"S-6": "a property of the whole deployment (proxies, LAN, public internet), described in docs/deployment.md; the heartbeat part is T-4/T-5",
	"H-6": "a property of the Hermes adapter's source (existing hooks and interfaces only), not of this server",
}

// markerRoots are the trees, relative to this package, whose non-test Go
// files are searched for markers: the server with its store, and the
// wiring that owns the bind rules S-2 and S-3.
var markerRoots = []string{".", "../reference", "../cmd/lmp-server"}

var (
	// markerPattern is the one accepted form of a marker: a line comment
	// "// Enforces X-N: what this code guarantees".
	markerPattern = regexp.MustCompile(`^// Enforces ([A-Z]-[0-9]+): \S`)
	// lookalikeWord and ruleIDWord catch comments that could be taken for a
	// marker: any comment line naming a rule ID with a form of "enforce".
	lookalikeWord = regexp.MustCompile(`(?i)enforc`)
	ruleIDWord    = regexp.MustCompile(`\b[A-Z]-[0-9]+\b`)
)

// marker is one Enforces comment.
type marker struct {
	rule string
	pos  string // file:line
}

// scanFile returns the markers in one Go source file and a problem for
// every comment that looks like a marker without being one.
func scanFile(name string, src []byte) ([]marker, []string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	var ms []marker
	var problems []string
	for _, g := range f.Comments {
		for _, c := range g.List {
			pos := fset.Position(c.Slash)
			at := fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
			if m := markerPattern.FindStringSubmatch(c.Text); m != nil {
				ms = append(ms, marker{rule: m[1], pos: at})
				continue
			}
			for i, line := range strings.Split(c.Text, "\n") {
				if lookalikeWord.MatchString(line) && ruleIDWord.MatchString(line) {
					problems = append(problems, fmt.Sprintf("%s:%d: looks like a marker but is not of the form \"// Enforces X-N: …\" (one rule per line): %q",
						pos.Filename, pos.Line+i, strings.TrimSpace(line)))
				}
			}
		}
	}
	return ms, problems, nil
}

// checkMarkers judges the markers against the rule IDs and the rules
// exempt from marking, and returns every problem, sorted.
func checkMarkers(ms []marker, ids []string, exempt map[string]string) []string {
	var problems []string
	byRule := map[string][]string{}
	for _, m := range ms {
		switch _, isExempt := exempt[m.rule]; {
		case !slices.Contains(ids, m.rule):
			problems = append(problems, fmt.Sprintf("%s: marker names unknown rule %s", m.pos, m.rule))
		case isExempt:
			problems = append(problems, fmt.Sprintf("%s: %s is listed as not enforced by the server (%s) but has a marker", m.pos, m.rule, exempt[m.rule]))
		default:
			byRule[m.rule] = append(byRule[m.rule], m.pos)
		}
	}
	for _, id := range ids {
		_, isExempt := exempt[id]
		switch at := byRule[id]; {
		case len(at) == 0 && !isExempt:
			problems = append(problems, fmt.Sprintf("%s: no \"// Enforces %s: …\" marker, and not listed as unenforced", id, id))
		case len(at) > 1:
			problems = append(problems, fmt.Sprintf("%s: markers in %d places, want one: %s", id, len(at), strings.Join(at, ", ")))
		}
	}
	for id := range exempt {
		if !slices.Contains(ids, id) {
			problems = append(problems, fmt.Sprintf("%s: listed as unenforced but is not a rule", id))
		}
	}
	sort.Strings(problems)
	return problems
}

// TestRuleMarkers checks that each rule of suites/rules has exactly one
// enforcement site in the reference server, or a reason why not.
func TestRuleMarkers(t *testing.T) {
	module, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var ms []marker
	var problems []string
	for _, root := range markerRoots {
		files := 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			name := path
			if abs, err := filepath.Abs(path); err == nil {
				if rel, err := filepath.Rel(module, abs); err == nil {
					name = filepath.ToSlash(rel) // as seen from the module root
				}
			}
			got, bad, err := scanFile(name, src)
			if err != nil {
				return err
			}
			files++
			ms = append(ms, got...)
			problems = append(problems, bad...)
			return nil
		})
		if err != nil {
			t.Fatalf("scan %s: %v", root, err)
		}
		if files == 0 {
			t.Fatalf("scan %s: no Go files; the marker check would prove nothing", root)
		}
	}
	// The client rules (C-1 …) are the app's duties: no server code makes
	// them true.
	ids := make([]string, 0, len(rules.Table))
	for _, r := range rules.ServerRules() {
		ids = append(ids, r.ID)
	}
	problems = append(problems, checkMarkers(ms, ids, unenforced)...)
	if len(problems) > 0 {
		t.Errorf("rule traceability (docs/architecture.md):\n  %s", strings.Join(problems, "\n  "))
	}
	if len(ms) < len(ids)-len(unenforced) {
		t.Errorf("found %d markers for %d enforced rules", len(ms), len(ids)-len(unenforced))
	}
}

// TestRuleMarkerCheckCatches feeds the check sources with every kind of
// mistake and expects each to be reported at its file:line.
func TestRuleMarkerCheckCatches(t *testing.T) {
	ids := []string{"A-1", "A-2", "A-3", "A-4"}
	exempt := map[string]string{"A-4": "someone else's duty", "Z-1": "stale entry"}
	srcA := `package p

// Enforces A-1: the first site.
func f() {
	// Enforces A-1: a second site for the same rule.
	_ = 1 // Enforces A-4: an exempt rule marked.
	// Enforces Q-9: a rule that does not exist.
}
`
	srcB := `package p

// enforces A-2: lower case.
// Enforces A-2, A-3: two rules on one line.
//Enforces A-2: no space.
// Enforces A-2
// This enforces A-3 in prose.
/* Enforces A-3: block comment. */
// P-4: an ordinary reference is fine; so is (E-5).
var x = 1
`
	var ms []marker
	var problems []string
	for name, src := range map[string]string{"a.go": srcA, "b.go": srcB} {
		got, bad, err := scanFile(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, got...)
		problems = append(problems, bad...)
	}
	problems = append(problems, checkMarkers(ms, ids, exempt)...)
	want := []string{
		"A-1: markers in 2 places, want one: a.go:3, a.go:5",
		"a.go:6: A-4 is listed as not enforced",
		"a.go:7: marker names unknown rule Q-9",
		"A-2: no \"// Enforces A-2: …\" marker",
		"A-3: no \"// Enforces A-3: …\" marker",
		"Z-1: listed as unenforced but is not a rule",
		"b.go:3: looks like a marker",
		"b.go:4: looks like a marker",
		"b.go:5: looks like a marker",
		"b.go:6: looks like a marker",
		"b.go:7: looks like a marker",
		"b.go:8: looks like a marker",
	}
	for _, w := range want {
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, w) }) {
			t.Errorf("no problem starting %q in:\n  %s", w, strings.Join(problems, "\n  "))
		}
	}
	if len(problems) != len(want) {
		t.Errorf("got %d problems, want %d:\n  %s", len(problems), len(want), strings.Join(problems, "\n  "))
	}
	for _, p := range problems {
		if strings.Contains(p, "b.go:9") {
			t.Errorf("an ordinary reference was flagged: %s", p)
		}
	}
}
