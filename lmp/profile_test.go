package lmp

import (
	"testing"
	"time"
)

// TestProfileDefaultsAndOverride: a zero field takes the spec's default,
// and an explicit setting wins over a profile learned elsewhere field by
// field, leaving the others as they were.
func TestProfileDefaultsAndOverride(t *testing.T) {
	p := Profile{PingInterval: 3 * time.Second, ReplayWindow: 64}.WithDefaults()
	want := DefaultProfile()
	want.PingInterval, want.ReplayWindow = 3*time.Second, 64
	if p != want {
		t.Fatalf("WithDefaults: %v, want %v", p, want)
	}
	o := p.Override(Profile{PongTimeout: time.Second, RequestIDWindow: 8})
	want.PongTimeout, want.RequestIDWindow = time.Second, 8
	if o != want {
		t.Fatalf("Override: %v, want %v", o, want)
	}
	if got := DefaultProfile().Deviations(); len(got) != 0 {
		t.Fatalf("the spec's defaults deviate: %v", got)
	}
	if got := o.Deviations(); len(got) != 4 {
		t.Fatalf("Deviations of %v: %v, want the ping, pong, replay and request_id lines", o, got)
	}
	if !(Profile{}).IsZero() || p.IsZero() {
		t.Fatal("IsZero")
	}
}
