package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGC: without GOGC the server collects at serverGCPercent; with
// GOGC set, whatever it says, the runtime keeps what it read from it.
func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	t.Setenv("GOGC", "50") // restored after the test, set or not
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("with GOGC set, tuneGC changed the GC percent to %d", got)
	}
	os.Unsetenv("GOGC")
	tuneGC()
	if got := debug.SetGCPercent(100); got != serverGCPercent {
		t.Fatalf("without GOGC the GC percent is %d, want %d", got, serverGCPercent)
	}
}
