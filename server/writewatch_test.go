package server

import (
	"testing"
	"time"
)

// The checks of writeWatch are driven by hand here (the timer is set far
// off), so each case is about the rule, not about scheduling.
func TestWriteWatchDeclaresStuckAfterTwoChecksWithoutAFrame(t *testing.T) {
	stuck := 0
	w := &writeWatch{timeout: time.Hour, stuck: func() { stuck++ }}
	w.wake()
	defer w.stop()
	w.wrote()
	w.check() // a frame since the last check: moving
	w.check() // first check without one
	if stuck != 0 {
		t.Fatal("stuck after one check without a frame: that may be a write of a few milliseconds")
	}
	w.wrote()
	w.check() // moving again: the count starts over
	w.check()
	if stuck != 0 {
		t.Fatal("stuck although a frame was written between the checks")
	}
	w.check()
	if stuck != 1 {
		t.Fatalf("stuck called %d times after two checks in a row without a frame", stuck)
	}
}

func TestWriteWatchIgnoresAnIdleWriter(t *testing.T) {
	stuck := 0
	w := &writeWatch{timeout: time.Hour, stuck: func() { stuck++ }}
	w.wake()
	defer w.stop()
	w.idle()
	for range 5 {
		w.check() // an idle writer writes nothing, and is not stuck
	}
	if stuck != 0 || w.armed.Load() {
		t.Fatalf("idle writer: stuck %d, timer still armed %v", stuck, w.armed.Load())
	}
	w.wake()
	if !w.armed.Load() {
		t.Fatal("a wake-up after idling does not arm the timer again")
	}
	w.check()
	w.check()
	if stuck != 1 {
		t.Fatalf("a writer stuck after a wake-up: stuck called %d times", stuck)
	}
}

// TestWriteWatchTimerFires runs the real timer: a busy writer that writes
// nothing is declared stuck by the timer alone.
func TestWriteWatchTimerFires(t *testing.T) {
	done := make(chan struct{})
	w := &writeWatch{timeout: 20 * time.Millisecond, stuck: func() { close(done) }}
	w.wake()
	defer w.stop()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("a busy writer without frames was never declared stuck")
	}
}
