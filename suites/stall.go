package suites

import (
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// A timer probe watches its own process for stalls
// (conformance.WatchStalls) and runs again when one stalled it
// (retryStalled).

// stallMargin is the longest stall a timer probe's attempt may see and
// still judge the server: half the tolerance of the checks it feeds, the
// pong timeout's and the ping interval's slack, whichever is smaller.
func stallMargin(p lmp.Profile) time.Duration {
	return min(p.PongTimeout, slack(p.PingInterval)) / 2
}

// timerAttempts is how often a timer probe runs at most; the run's budget
// counts them (conformance.TimerAttempts).
const timerAttempts = conformance.TimerAttempts

// retryStalled runs attempt until one is not late, at most timerAttempts
// times, and notes each discarded attempt in the probe's report.
func retryStalled(p noter, attempt func() (late string, err error)) error {
	for n := 1; ; n++ {
		late, err := attempt()
		switch {
		case err != nil || late == "":
			return err
		case n == timerAttempts:
			p.Notef("attempt %d of %d kept although %s", n, timerAttempts, late)
			return nil
		}
		p.Notef("attempt %d discarded and run again: %s", n, late)
	}
}

// noter is where retryStalled notes its attempts: the probe's report.
type noter interface {
	Notef(format string, args ...any)
}
