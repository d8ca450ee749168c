package selftest

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/fault"
)

// Verdicts of one faulty server.
const (
	Caught    = "caught"     // exit 1, and a failing spec carries a broken rule's ID
	WrongRule = "wrong-rule" // exit 1, but only specs of other rules failed
	Missed    = "missed"     // lmp-check passed the faulty server
	Broken    = "error"      // lmp-check could not run (exit 2) or the run failed
)

// row is one line of the self-test's table.
type row struct {
	fault    fault.Fault
	verdict  string
	caughtBy []string // the fault's rule IDs that a failing spec carries
	levels   []string // the levels of those specs
	failing  []string // every failing spec, "[rules] text"
	exit     int
	duration time.Duration
	problem  string
}

// judge decides whether lmp-check caught fault f from its outcome.
func judge(f fault.Fault, o outcome) row {
	r := row{fault: f, exit: o.exit, duration: o.duration}
	for _, s := range o.report.Specs {
		if s.Verdict != string(check.Fail) && s.Verdict != string(check.UnexpectedPass) {
			continue
		}
		r.failing = append(r.failing, "["+strings.Join(s.Rules, ",")+"] "+s.Text)
		hit := false
		for _, id := range s.Rules {
			if slices.Contains(f.Rules, id) {
				hit = true
				if !slices.Contains(r.caughtBy, id) {
					r.caughtBy = append(r.caughtBy, id)
				}
			}
		}
		if hit && !slices.Contains(r.levels, s.Level) {
			r.levels = append(r.levels, s.Level)
		}
	}
	slices.Sort(r.caughtBy)
	slices.Sort(r.levels)
	switch {
	case o.exit == 0:
		r.verdict = Missed
		r.problem = "lmp-check passed the faulty server: no spec of " + strings.Join(f.Rules, ", ") + " in sections " + strings.Join(f.Sections, ", ") + " noticed"
	case o.exit != 1:
		r.verdict = Broken
		r.problem = fmt.Sprintf("lmp-check exited %d (usage error or unreachable target)", o.exit)
	case len(r.caughtBy) == 0:
		r.verdict = WrongRule
		r.problem = "only specs of other rules failed; none of " + strings.Join(f.Rules, ", ")
	default:
		r.verdict = Caught
	}
	return r
}

// writeTable writes the fault → rule IDs → verdict table.
func writeTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "%-32s %-10s %-10s %-11s %-11s %6s  %s\n", "FAULT", "BREAKS", "CAUGHT BY", "VERDICT", "LEVEL", "TIME", "FAILING SPECS")
	caught := 0
	for _, r := range rows {
		if r.verdict == Caught {
			caught++
		}
		failing := "-"
		if len(r.failing) > 0 {
			failing = strings.Join(r.failing, " | ")
		}
		fmt.Fprintf(w, "%-32s %-10s %-10s %-11s %-11s %5.1fs  %s\n", r.fault.Name, strings.Join(r.fault.Rules, ","),
			orDash(strings.Join(r.caughtBy, ",")), r.verdict, orDash(strings.Join(r.levels, ",")), r.duration.Seconds(), failing)
	}
	fmt.Fprintf(w, "%d of %d faults caught by a spec of the rule they break\n", caught, len(rows))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
