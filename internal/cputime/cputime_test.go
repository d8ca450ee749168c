package cputime

import (
	"testing"
	"time"
)

// TestProcessCountsWork: CPU time is counted, and busy work adds to it.
func TestProcessCountsWork(t *testing.T) {
	before := Process()
	if before <= 0 {
		t.Fatalf("Process() = %v before any work, want the time the test binary has used", before)
	}
	x := 0
	for deadline := time.Now().Add(10 * time.Second); Process() == before; {
		if time.Now().After(deadline) {
			t.Fatalf("Process() still %v after 10 s of busy work", before)
		}
		for i := 0; i < 1e6; i++ {
			x += i
		}
	}
	if got := Process(); got < before {
		t.Fatalf("CPU time went back: %v after %v", got, before)
	}
	_ = x
}
