package selftest

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/mutant"
)

// Verdicts of one mutant.
const (
	Caught     = "caught"      // exit 1, and a failing MUST spec carries a broken rule's ID
	StrictOnly = "strict-only" // exit 0, but a SHOULD/INFO spec of a broken rule failed: caught by --strict
	WrongRule  = "wrong-rule"  // exit 1, but only specs of other rules failed
	Missed     = "missed"      // lmp-check passed the mutated server
	Broken     = "error"       // the mutant did not build, or lmp-check could not run
)

// row is one line of the self-test's table.
type row struct {
	mutant   mutant.Mutant
	verdict  string
	caughtBy []string // the mutant's rule IDs that a failing spec carries
	levels   []string // the levels of those specs
	failing  []string // every failing spec, "[rules] text"
	// wire is the verdict of the driverless run (--no-driver --triggers
	// mock); empty when it did not run (the mutant was not caught by
	// default).
	wire string
	// minimal is the verdict of the run behind the minimal variant
	// (runMinimal); empty when it did not run.
	minimal  string
	exit     int
	duration time.Duration
	problem  string
}

// judge decides whether lmp-check, run in its default mode, caught m.
func judge(m mutant.Mutant, o outcome) row {
	r := row{mutant: m, exit: o.exit, duration: o.duration}
	byMust := false
	for _, s := range o.report.Specs {
		failed := s.Verdict == string(check.Fail) || s.Verdict == string(check.UnexpectedPass)
		if !failed && s.Verdict != string(check.NonStrict) {
			continue
		}
		r.failing = append(r.failing, "["+strings.Join(s.Rules, ",")+"] "+s.Text)
		hit := false
		for _, id := range s.Rules {
			if slices.Contains(m.Rules, id) {
				hit = true
				if !slices.Contains(r.caughtBy, id) {
					r.caughtBy = append(r.caughtBy, id)
				}
			}
		}
		if hit {
			byMust = byMust || failed
			if !slices.Contains(r.levels, s.Level) {
				r.levels = append(r.levels, s.Level)
			}
		}
	}
	slices.Sort(r.caughtBy)
	slices.Sort(r.levels)
	exit := o.exit
	if crash := serverCrash(o.output); exit == 2 && crash != "" {
		// The mutated server panicked (it runs in lmp-check's process, so
		// the exit is a panic's 2): against a server process that is a
		// failed run, and the failing specs say which rules saw it.
		exit = 1
		r.problem = "the mutated server crashed: " + crash
	}
	switch {
	case exit == 1 && byMust:
		r.verdict = Caught
	case exit == 0 && len(r.caughtBy) > 0:
		r.verdict = StrictOnly
		r.problem = "only a SHOULD or INFO spec of " + strings.Join(r.caughtBy, ", ") + " failed: caught under --strict only"
	case exit == 0:
		r.verdict = Missed
		r.problem = "lmp-check passed the mutated server: no spec of " + strings.Join(m.Rules, ", ") + " in sections " + strings.Join(m.Sections, ", ") + " noticed"
	case exit != 1:
		r.verdict = Broken
		r.problem = fmt.Sprintf("lmp-check exited %d (usage error or unreachable target)", o.exit)
	default:
		r.verdict = WrongRule
		r.problem = "only specs of other rules failed; none of " + strings.Join(m.Rules, ", ")
	}
	return r
}

// writeTable writes the mutant → rule IDs → verdict table.
func writeTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "%-36s %-10s %-10s %-11s %-11s %-11s %-11s %6s  %s\n", "MUTANT", "BREAKS", "CAUGHT BY", "VERDICT", "LEVEL", "NO DRIVER", "MINIMAL", "TIME", "FAILING SPECS")
	counts := map[string]int{}
	wireVisible, wireCaught, hermesOnly := 0, 0, 0
	minimalRuns, minimalCaught, ownHidden, ownRuns := 0, 0, 0, 0
	for _, r := range rows {
		counts[r.verdict]++
		switch {
		case r.minimal == "":
		case minimalExpectation(r.mutant) == Missed:
			ownRuns++
			if r.minimal == Missed {
				ownHidden++
			}
		default:
			minimalRuns++
			if r.minimal == Caught {
				minimalCaught++
			}
		}
		if r.wire != "" {
			if r.mutant.NeedsDriver != "" {
				hermesOnly++
			} else {
				wireVisible++
				if r.wire == Caught {
					wireCaught++
				}
			}
		}
		failing := "-"
		if len(r.failing) > 0 {
			failing = strings.Join(r.failing, " | ")
		}
		fmt.Fprintf(w, "%-36s %-10s %-10s %-11s %-11s %-11s %-11s %5.1fs  %s\n", r.mutant.ID, strings.Join(r.mutant.Rules, ","),
			orDash(strings.Join(r.caughtBy, ",")), r.verdict, orDash(strings.Join(r.levels, ",")), orDash(r.wire), orDash(r.minimal), r.duration.Seconds(), failing)
	}
	fmt.Fprintf(w, "behind the minimal variant (only the fields lmp-v1.md defines): %d of %d mutants caught through the wire are caught there too; %d of %d mutants of our own fields are hidden there, under --strict too\n",
		minimalCaught, minimalRuns, ownHidden, ownRuns)
	fmt.Fprintf(w, "without the driver (--no-driver --triggers mock): %d of %d mutants caught by default are caught with triggers only; the other %d are listed, with the reason, in needs_driver (see FAULTS.md)\n",
		wireCaught, wireVisible+hermesOnly, wireVisible+hermesOnly-wireCaught)
	fmt.Fprintf(w, "%d of %d mutants caught by default by a spec of the rule they break (%.1f %%); %d more under --strict only; %d missed, %d wrong rule, %d errors\n",
		counts[Caught], len(rows), 100*float64(counts[Caught])/float64(max(len(rows), 1)), counts[StrictOnly], counts[Missed], counts[WrongRule], counts[Broken])
}

// wireVerdict judges the driverless run of m.
func wireVerdict(m mutant.Mutant, o outcome, err error) string {
	if err != nil {
		return Broken
	}
	return judge(m, o).verdict
}

// wireTail is the driverless run's output, for a failure message.
func wireTail(o outcome, err error) string {
	if err != nil {
		return err.Error() + "\n" + tail(o.output)
	}
	return tail(o.output)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
