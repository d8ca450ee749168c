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

// TestTimerSpecTimeoutFollowsTheTarget: a timer spec waits on its probe,
// so its timeout covers every attempt of the longest probe of the target's
// own timings, however long the target declares them, and the spec's
// timings in a preview.
func TestTimerSpecTimeoutFollowsTheTarget(t *testing.T) {
	slowPings := lmp.Profile{PingInterval: time.Minute, PongTimeout: 10 * time.Second, MissedPongs: 3}.WithDefaults()
	heartbeat := TimerAttempts * (time.Duration(slowPings.MissedPongs+2)*slowPings.PingInterval + slowPings.PongTimeout)
	if got := timerSpecTimeout(&Target{Profile: slowPings}); got <= heartbeat {
		t.Errorf("60 s pings: timer specs time out after %v, within two attempts of the heartbeat probe (%v)", got, heartbeat)
	}
	slowAuth := lmp.Profile{AuthTimeout: 5 * time.Minute}.WithDefaults()
	if got := timerSpecTimeout(&Target{Profile: slowAuth}); got <= TimerAttempts*slowAuth.AuthTimeout {
		t.Errorf("a 5 min auth timeout: timer specs time out after %v, within its two attempts", got)
	}
	if got := timerSpecTimeout(nil); got <= lmp.DefaultPairTTL {
		t.Errorf("a preview's timer specs time out after %v, within the spec's token TTL", got)
	}
}
