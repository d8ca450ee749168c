package conformance

import (
	"sync/atomic"
	"time"
)

// A check that measures the server with the checker's clock judges the
// machine, not the server, when the machine stalls the checker's process
// across it: on a loaded machine (CI building the next binaries while
// lmp-check runs) a process can go a second or more without the CPU. The
// server's timers then fire late, or fire before the checker's frame is
// read, and the checker reads what the server sent late. A StallWatch
// sees such a stall, so that the attempt it spoiled can be run again.
// Against lmp-check's in-process server the watch sees the very stalls
// the server's timers see; against a server elsewhere it sees the
// checker's.

// StallTick is how often a StallWatch's timer is due. A stall shorter
// than a tick can go unseen, so a margin a stall is judged by should be
// ten ticks or more.
const StallTick = 50 * time.Millisecond

// StallWatch measures how late its own timer fires, tick after tick, and
// keeps the worst.
type StallWatch struct {
	worst   atomic.Int64 // nanoseconds
	due     time.Time    // when the pending tick is due; the goroutine's until done closes
	stopped chan struct{}
	done    chan struct{}
}

// WatchStalls starts a stall watch; Stop ends it.
func WatchStalls() *StallWatch {
	w := &StallWatch{stopped: make(chan struct{}), done: make(chan struct{})}
	// Armed before WatchStalls returns: a stall from then on is seen.
	t := time.NewTimer(StallTick)
	w.due = time.Now().Add(StallTick)
	go func() {
		defer close(w.done)
		defer t.Stop()
		for {
			select {
			case <-w.stopped:
				return
			case <-t.C:
				now := time.Now()
				if late := now.Sub(w.due); late > time.Duration(w.worst.Load()) {
					w.worst.Store(int64(late))
				}
				w.due = now.Add(StallTick)
				t.Reset(StallTick)
			}
		}
	}()
	return w
}

// Stop ends the watch and returns the longest stall it saw: how much later
// than due its timer fired at worst, or is now overdue. A stall that ends
// just before Stop leaves the tick it delayed pending, and the watch's
// goroutine may take the stop before that tick: the overdue tick still
// counts.
func (w *StallWatch) Stop() time.Duration {
	close(w.stopped)
	<-w.done
	return max(time.Duration(w.worst.Load()), time.Since(w.due))
}

// Stalled says how a stall of worst spoiled an attempt, or is empty when
// worst is within margin.
func Stalled(worst, margin time.Duration) string {
	if worst <= margin {
		return ""
	}
	return "the checker's own timer fired " + worst.Round(time.Millisecond).String() + " late: the machine stalled"
}
