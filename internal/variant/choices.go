package variant

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Choices are the variant's answers to the open points of notes.md: each
// note it can answer either way is a switch, Alt[note] true for the
// variant's own answer and false for the preferred one, which is the
// reference server's behind it (passed through). Minimal strips every
// payload to §4's fields.
type Choices struct {
	// Minimal sends nothing beyond what lmp-v1.md defines: only §4's
	// fields in every payload, task rows with only task_id and the title
	// under another name, an acknowledgement with only request_id.
	Minimal bool
	// Alt holds the notes answered the variant's way (see Notes).
	Alt map[int]bool
}

// Notes are the notes.md points the variant can answer either way, and its
// answer to each when switched on:
//
//	 2  every server frame takes a seq of its own, connection frames included
//	 5  the acknowledgement of session.send and approval.resolve carries only request_id
//	 6  a failed run sends run.failed, then run.completed{status:"failed"}
//	 8  any client frame proves liveness: the variant answers the upstream's ping
//	    for a client that sent anything since the last one
//	11  an unsupported protocol_version gets a fatal version_mismatch naming no versions
//	12  a binary frame gets a non-fatal error and the connection stays open
//	15  an approval that timed out is resolved with decided_by "agent"
//	16  a second hello is refused with a fatal error and a close
//	21  its own names: acks "reply" and "approval.resolve.result", upper-case
//	    error codes, close codes in the 4000 range, task statuses running and
//	    done, an expired approval's choice "expired", run.completed.finished
//	    a timestamp
var Notes = []int{2, 5, 6, 8, 11, 12, 15, 16, 21}

// AllAlternatives answers every note the variant's way, with every field
// of the reference server kept.
func AllAlternatives() Choices {
	c := Choices{Alt: map[int]bool{}}
	for _, n := range Notes {
		c.Alt[n] = true
	}
	return c
}

// MinimalChoices is the minimal server: only what the spec defines, every
// open point answered the variant's way.
func MinimalChoices() Choices {
	c := AllAlternatives()
	c.Minimal = true
	return c
}

// RandomChoices draws each switch, minimal included, from seed.
func RandomChoices(seed uint64) Choices {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := Choices{Minimal: r.IntN(2) == 1, Alt: map[int]bool{}}
	for _, n := range Notes {
		c.Alt[n] = r.IntN(2) == 1
	}
	return c
}

// On reports whether note n is answered the variant's way.
func (c Choices) On(n int) bool { return c.Alt[n] }

// Contradicted are the notes whose preferred answer c does not give, in
// order: their SHOULD specs may fail.
func (c Choices) Contradicted() []int {
	var out []int
	for _, n := range Notes {
		if c.Alt[n] {
			out = append(out, n)
		}
	}
	// The minimal server's acknowledgement carries only request_id, which
	// contradicts note 5 whatever its switch, and its error frames carry
	// no supported_versions (note 11).
	if c.Minimal {
		for _, n := range []int{5, 11} {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
	}
	return out
}

// String is the flag form of c: "minimal,2,5,…" ("preferred" for none).
func (c Choices) String() string {
	var parts []string
	if c.Minimal {
		parts = append(parts, "minimal")
	}
	for _, n := range Notes {
		if c.Alt[n] {
			parts = append(parts, strconv.Itoa(n))
		}
	}
	if len(parts) == 0 {
		return "preferred"
	}
	return strings.Join(parts, ",")
}

// ParseChoices reads the flag form of Choices: a comma-separated list of
// note numbers and "minimal", or "all", or "preferred".
func ParseChoices(s string) (Choices, error) {
	c := Choices{Alt: map[int]bool{}}
	for _, part := range strings.Split(s, ",") {
		switch part = strings.TrimSpace(part); part {
		case "", "preferred":
		case "all":
			c.Alt = AllAlternatives().Alt
		case "minimal":
			c.Minimal = true
		default:
			n, err := strconv.Atoi(part)
			if err != nil || !slices.Contains(Notes, n) {
				return Choices{}, fmt.Errorf("variant: choice %q is neither minimal nor one of the notes %v", part, Notes)
			}
			c.Alt[n] = true
		}
	}
	return c, nil
}
