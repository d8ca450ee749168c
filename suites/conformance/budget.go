package conformance

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Budget is how long a run of a selection of specs may take against a
// server with a timing profile: the longest timer the probes wait on
// (they run side by side), an allowance for each spec, and a margin for
// the set-up and the clean-up. A run still going at its budget is cut
// (SetRunDeadline): the specs not finished by then fail, naming why, and
// the reports are written as usual. A broken server therefore gets a
// verdict within the budget, however it misbehaves.
type Budget struct {
	Timers  time.Duration // the longest timer wait
	Specs   int           // the specs selected
	PerSpec time.Duration // each spec's allowance
	Margin  time.Duration // set-up and clean-up
}

// PerSpecAllowance is a spec's share of the budget, the usual bound of
// one expected frame (Wait): a server answering at once takes milliseconds
// per spec, a loaded CI machine a second or two; a spec waiting on its own
// long timeout is covered by Timers or by what the quicker specs leave. A
// budget that cut a conformant server's run would fail specs it passes,
// so the allowance errs on the generous side.
const PerSpecAllowance = 10 * time.Second

// TimerAttempts is how often a timer probe (a heartbeat probe, the
// auth-timeout probe) runs at most. An attempt that judged the machine (a
// stall of lmp-check's own process) is discarded and the probe runs once
// more; a server that is late again is judged on the second attempt.
const TimerAttempts = 2

// budgetMargin covers the set-up before the specs and the clean-up after.
const budgetMargin = 2 * time.Minute

// BudgetFor returns the budget of a run of specs specs at profile p.
func BudgetFor(p lmp.Profile, specs int) Budget {
	p = p.WithDefaults()
	// The longest heartbeat probe waits for MissedPongs+2 pings; it and the
	// auth-timeout probe may run TimerAttempts times.
	heartbeat := TimerAttempts * (time.Duration(p.MissedPongs+2)*p.PingInterval + p.PongTimeout)
	timers := max(heartbeat, TimerAttempts*p.AuthTimeout, p.PairTTL, p.ApprovalTimeout) + Wait()
	return Budget{Timers: timers + max(timers/5, time.Second), Specs: specs, PerSpec: PerSpecAllowance, Margin: budgetMargin}
}

// Total is the whole run's budget.
func (b Budget) Total() time.Duration {
	return b.Timers + time.Duration(b.Specs)*b.PerSpec + b.Margin
}

// String says how the budget was computed.
func (b Budget) String() string {
	return fmt.Sprintf("%v: the longest timer %v + %d specs × %v + %v to set up and clean up",
		b.Total().Round(time.Second), b.Timers.Round(time.Second), b.Specs, b.PerSpec, b.Margin)
}

// CutAt cuts the run at at: a spec that starts later fails at once with
// why (which names the budget or --run-timeout), and the running spec's
// context ends at it. Call it before the suite runs.
func (t *Target) CutAt(at time.Time, why string) {
	t.cutAt, t.cutWhy = at, why
}

// boundedSpec is a spec's context cut at the run's deadline.
type boundedSpec struct {
	ginkgo.SpecContext
	ctx context.Context
}

func (b boundedSpec) Deadline() (time.Time, bool) { return b.ctx.Deadline() }
func (b boundedSpec) Done() <-chan struct{}       { return b.ctx.Done() }
func (b boundedSpec) Err() error                  { return b.ctx.Err() }
func (b boundedSpec) Value(key any) any           { return b.ctx.Value(key) }

// withinRun fails the spec at once when the run's deadline has passed, and
// otherwise returns its context cut at the deadline.
func (t *Target) withinRun(ctx ginkgo.SpecContext) (ginkgo.SpecContext, context.CancelFunc) {
	if t.cutAt.IsZero() {
		return ctx, func() {}
	}
	if !time.Now().Before(t.cutAt) {
		ginkgo.Fail("not run: " + t.cutWhy)
	}
	c, cancel := context.WithDeadline(ctx, t.cutAt)
	return boundedSpec{SpecContext: ctx, ctx: c}, cancel
}

// specIndex holds the labels and full text of every spec declared, for
// Selected; Declare fills it, like the tree.
var specIndex []indexedSpec

type indexedSpec struct {
	labels []string
	text   string
}

// Selected counts the specs of the declared tree (Declare) that a run with
// these selection flags runs, as Ginkgo selects them: the label filter,
// then --focus and --skip on the full text.
func Selected(labelFilter string, focus, skip []string) (int, error) {
	keep := func([]string) bool { return true }
	if labelFilter != "" {
		f, err := types.ParseLabelFilter(labelFilter)
		if err != nil {
			return 0, err
		}
		keep = f
	}
	compile := func(list []string) ([]*regexp.Regexp, error) {
		var out []*regexp.Regexp
		for _, s := range list {
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, err
			}
			out = append(out, re)
		}
		return out, nil
	}
	fo, err := compile(focus)
	if err != nil {
		return 0, err
	}
	sk, err := compile(skip)
	if err != nil {
		return 0, err
	}
	matches := func(res []*regexp.Regexp, s string) bool {
		for _, re := range res {
			if re.MatchString(s) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, d := range specIndex {
		if !keep(d.labels) || len(fo) > 0 && !matches(fo, d.text) || matches(sk, d.text) {
			continue
		}
		n++
	}
	return n, nil
}
