// Package rules holds the numbered rules of LMP v1 (T-1, E-5, P-4 …) as Go
// data, the requirement levels the conformance suites use, and the rules
// that cannot be checked from outside a server, each with the reason.
package rules

import (
	"fmt"
	"regexp"
	"strings"
)

// Level is how strongly a spec's requirement binds.
type Level string

// Levels. MUST comes from the spec's text; SHOULD checks a preferred answer
// of notes.md on a point the spec leaves open, which another
// implementation may answer differently; INFO observes one of the
// reference server's own choices the spec does not name (an error code, a
// close code, a frame name, docs/protocol.md), and fails no run, not even
// under --strict (note 21).
const (
	MUST   Level = "MUST"
	SHOULD Level = "SHOULD"
	INFO   Level = "INFO"
)

// Levels lists every level, strongest first.
var Levels = []Level{MUST, SHOULD, INFO}

// Rule is one numbered rule.
type Rule struct {
	ID      string
	Level   Level
	Section string // "§1 Transport"; the client rules' is AppSection
	Text    string
	// From names the server rules and sections a client rule restates
	// ("P-3, P-8, F-2"); empty for the server's rules.
	From string
}

// AppSection is the section of the client rules (C-1 …): the app's side of
// the protocol, which `lmp-check app` judges.
const AppSection = "The app's side (client rules)"

// IsClientRule reports whether id names one of the app's rules (C-1 …),
// which a server run does not check and an app run checks alone.
func IsClientRule(id string) bool { return strings.HasPrefix(id, "C-") }

// ServerRules are the rules a server run checks: every rule but the
// client rules.
func ServerRules() []Rule { return side(false) }

// ClientRules are the rules an app run checks (C-1 …).
func ClientRules() []Rule { return side(true) }

func side(client bool) []Rule {
	var out []Rule
	for _, r := range Table {
		if IsClientRule(r.ID) == client {
			out = append(out, r)
		}
	}
	return out
}

// idPattern is the shape of a rule ID.
var idPattern = regexp.MustCompile(`^[A-Z]-[0-9]+$`)

// IsID reports whether s has the shape of a rule ID; it says nothing about
// whether the rule exists (see Lookup).
func IsID(s string) bool { return idPattern.MatchString(s) }

var byID = func() map[string]Rule {
	m := make(map[string]Rule, len(Table))
	for _, r := range Table {
		m[r.ID] = r
	}
	return m
}()

// Lookup returns the rule with the given ID.
func Lookup(id string) (Rule, bool) {
	r, ok := byID[id]
	return r, ok
}

// Validate returns an error naming every ID in ids that is not a rule.
func Validate(ids ...string) error {
	var bad []string
	for _, id := range ids {
		if _, ok := byID[id]; !ok {
			bad = append(bad, id)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("unknown rule ID(s): %s", strings.Join(bad, ", "))
	}
	return nil
}

// Uncheckable lists the rules no black-box check can decide, with the
// reason and where they are checked instead.
var Uncheckable = map[string]string{
	"S-2":  "the default bind address is a start-up setting; checked by the server's own tests and cmd/lmp-server tests",
	"S-3":  "refusing to start is a start-up behaviour; checked by the server's own tests",
	"H-6":  "whether Hermes core was changed is a property of the adapter's source, not of its wire behaviour",
	"C-12": "how the app orders and dates what it shows is not on the wire; a person checks the app's screens",
	"C-13": "how the app labels run.pause and run.resume is in its UI, not on the wire; a person checks it",
}

// PartlyCheckable lists rules that the suites check only in part, with
// what is left out.
var PartlyCheckable = map[string]string{
	"S-1": "needs --server-log FILE: the server's log file is scanned for every token and credential the run has seen; secrets logged elsewhere (another file, a log service) are not seen",
	"S-6": "only the WebSocket through a reverse proxy on the checker's host; LAN and public deployments depend on infrastructure, and the heartbeat specs (T-4, T-5) check the keep-alive part",
	"E-4": "only that payloads are plain JSON literals matching the schemas; an internal object rendered as a string cannot be told apart",
	"H-1": "checked through the mock Hermes driver API: hooks fired there must produce the mapped frames",
	"H-2": "checked through the mock Hermes driver API",
	"H-3": "checked through the mock Hermes driver API",
	"H-4": "checked through the mock Hermes driver API",
	"H-5": "checked through the calls the mock Hermes records",
}
