package conformance

import (
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestBudgetFollowsTheProfile: the budget grows with the longest timer of
// the profile and with the selected specs, and a zero profile means the
// spec's timings.
func TestBudgetFollowsTheProfile(t *testing.T) {
	spec := BudgetFor(lmp.Profile{}, 10)
	if spec.Timers < lmp.DefaultApprovalTimeout || spec.Timers < lmp.DefaultPairTTL {
		t.Errorf("the spec's timings give timers %v, below the 300 s approval timeout and token TTL", spec.Timers)
	}
	short := BudgetFor(lmp.Profile{PingInterval: 3 * time.Second, PongTimeout: time.Second, MissedPongs: 3,
		AuthTimeout: 1500 * time.Millisecond, PairTTL: 5 * time.Second, ApprovalTimeout: 4 * time.Second}, 10)
	if short.Total() >= spec.Total() {
		t.Errorf("short timings' budget %v is not below the spec's %v", short, spec)
	}
	// The auth-timeout probe may run twice (a stalled first attempt).
	slowAuth := lmp.Profile{PingInterval: 3 * time.Second, PongTimeout: time.Second, MissedPongs: 3,
		AuthTimeout: 10 * time.Minute, PairTTL: 5 * time.Second, ApprovalTimeout: 4 * time.Second}
	if b := BudgetFor(slowAuth, 10); b.Timers < 2*slowAuth.AuthTimeout {
		t.Errorf("a 10 min auth timeout gives timers %v, below its two attempts", b.Timers)
	}
	if more := BudgetFor(lmp.Profile{}, 11); more.Total()-spec.Total() != PerSpecAllowance {
		t.Errorf("one spec more adds %v, want %v", more.Total()-spec.Total(), PerSpecAllowance)
	}
}
