package suites

import (
	"sync/atomic"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// A timer check measures the server with the checker's clock. On a loaded
// machine (CI building the next binaries while lmp-check runs) a process
// can go a second or more without the CPU: the server's timers then fire
// late, and so does the checker's reading of what the server sent. A
// check made across such a stall judges the machine, not the server, so a
// timer probe watches its own process for stalls and runs again when one
// stalled it (retryStalled). Against lmp-check's in-process server the
// watch sees the very stalls the server's timers see; against a server
// elsewhere it sees the checker's.

// stallTick is how often the watch's timer is due. A stall shorter than
// a tick can go unseen; stallMargin is ten ticks or more.
const stallTick = 50 * time.Millisecond

// stallWatch measures how late its own timer fires, tick after tick, and
// keeps the worst.
type stallWatch struct {
	worst   atomic.Int64 // nanoseconds
	stopped chan struct{}
	done    chan struct{}
}

// watchStalls starts a stall watch; stop ends it.
func watchStalls() *stallWatch {
	w := &stallWatch{stopped: make(chan struct{}), done: make(chan struct{})}
	// Armed before watchStalls returns: a stall from then on is seen.
	t := time.NewTimer(stallTick)
	due := time.Now().Add(stallTick)
	go func() {
		defer close(w.done)
		defer t.Stop()
		for {
			select {
			case <-w.stopped:
				return
			case <-t.C:
				now := time.Now()
				if late := now.Sub(due); late > time.Duration(w.worst.Load()) {
					w.worst.Store(int64(late))
				}
				due = now.Add(stallTick)
				t.Reset(stallTick)
			}
		}
	}()
	return w
}

// stop ends the watch and returns the longest stall it saw: how much later
// than due its timer fired at worst.
func (w *stallWatch) stop() time.Duration {
	close(w.stopped)
	<-w.done
	return time.Duration(w.worst.Load())
}

// stallMargin is the longest stall a timer probe's attempt may see and
// still judge the server: half the tolerance of the checks it feeds, the
// pong timeout's and the ping interval's slack, whichever is smaller.
func stallMargin(p lmp.Profile) time.Duration {
	return min(p.PongTimeout, slack(p.PingInterval)) / 2
}

// stalled says how a stall of worst spoiled an attempt, or is empty when
// worst is within margin.
func stalled(worst, margin time.Duration) string {
	if worst <= margin {
		return ""
	}
	return "the checker's own timer fired " + worst.Round(time.Millisecond).String() + " late: the machine stalled"
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
