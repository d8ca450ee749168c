package server

import (
	"math"
	"sync/atomic"
	"time"
)

// writeWatch drops a connection whose writer is stuck in one frame write
// for writeTimeout or longer (a peer that takes no frame). It costs no
// timer or context per frame: the writer counts the frames it writes, and
// while it is busy a timer of writeTimeout/2 checks that the count moves.
// A write is declared stuck after two checks in a row see the same count
// while the writer is busy, that is after between writeTimeout and 1.5 ×
// writeTimeout without a frame written.
type writeWatch struct {
	timeout time.Duration
	stuck   func() // called once when a write is stuck

	written atomic.Uint64 // frames written; the writer's only per-frame cost
	busy    atomic.Bool   // the writer is between a wake-up and its next wait
	armed   atomic.Bool   // the timer is pending
	t       *time.Timer   // created on the first wake-up

	// Timer-only: the count the last check saw and how many checks in a
	// row saw it unchanged.
	seen  uint64
	still int
}

// wake marks the writer busy and arms the timer if it is not pending.
// Writer only.
func (w *writeWatch) wake() {
	w.busy.Store(true)
	if !w.armed.CompareAndSwap(false, true) {
		return
	}
	if w.t == nil {
		// Created unarmed and armed by Reset once w.t is set: Reset
		// happens before the check it schedules.
		w.t = time.AfterFunc(math.MaxInt64, w.check)
	}
	w.t.Reset(w.timeout / 2)
}

// wrote counts a frame written. Writer only.
func (w *writeWatch) wrote() { w.written.Add(1) }

// idle marks the writer waiting for work. Writer only.
func (w *writeWatch) idle() { w.busy.Store(false) }

// stop ends the watch for good. Writer only, when it ends.
func (w *writeWatch) stop() {
	w.busy.Store(false)
	if w.t != nil {
		w.t.Stop()
	}
}

// check runs on the timer. It re-arms while the writer is busy; the order
// of the stores and loads (armed, then busy; busy, then armed in wake)
// leaves no busy writer without a pending check.
func (w *writeWatch) check() {
	n := w.written.Load()
	if !w.busy.Load() {
		w.seen, w.still = n, 0
		w.armed.Store(false)
		if !w.busy.Load() || !w.armed.CompareAndSwap(false, true) {
			return
		}
	} else if n != w.seen {
		w.seen, w.still = n, 0
	} else if w.still++; w.still >= 2 {
		w.stuck()
		return
	}
	w.t.Reset(w.timeout / 2)
}
