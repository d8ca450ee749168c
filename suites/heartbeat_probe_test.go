package suites

import (
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestLateAnswer: a heartbeat attempt is discarded only when the probe's
// own pong left later than it meant, measured against the server's ts on
// each ping whatever the offset between the two clocks; a pong the probe
// delays on purpose is not late.
func TestLateAnswer(t *testing.T) {
	base := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for _, skew := range []time.Duration{0, time.Hour, -37 * time.Second} {
		// ping n stamped at base+3n s by the server; arrives after delay.
		ping := func(n int, delay time.Duration) client.Frame {
			stamped := base.Add(time.Duration(3*n) * time.Second)
			return client.Frame{Frame: lmp.Frame{Type: lmp.TypePing, TS: float64(stamped.UnixMicro()) / 1e6}, At: stamped.Add(skew + delay)}
		}
		pong := func(f client.Frame, n int, meant, wait time.Duration) *pongSent {
			return &pongSent{n: n, ts: f.TS, at: f.At, meant: meant, sentAt: f.At.Add(meant + wait)}
		}
		p1, p2, p3 := ping(1, 2*time.Millisecond), ping(2, 3*time.Millisecond), ping(3, 1200*time.Millisecond)
		pings := []client.Frame{p1, p2, p3}
		margin := 500 * time.Millisecond

		if got := lateAnswer(pings, []*pongSent{pong(p1, 1, 0, time.Millisecond), pong(p2, 2, 2*time.Second, 5*time.Millisecond)}, margin); got != "" {
			t.Errorf("skew %v: pongs on time (one delayed on purpose) called late: %s", skew, got)
		}
		// Ping 3 arrived 1.2 s after the server stamped it: the checker
		// stalled, and its pong left late although sent at once.
		if got := lateAnswer(pings, []*pongSent{pong(p1, 1, 0, 0), pong(p3, 3, 0, time.Millisecond)}, margin); !strings.Contains(got, "ping 3") {
			t.Errorf("skew %v: a pong to a ping that arrived 1.2 s late is not called late: %q", skew, got)
		}
		// Ping 2 arrived on time, but the pong waited 800 ms to leave.
		if got := lateAnswer(pings, []*pongSent{pong(p2, 2, 0, 800*time.Millisecond)}, margin); !strings.Contains(got, "ping 2") {
			t.Errorf("skew %v: a pong that waited 800 ms to leave is not called late: %q", skew, got)
		}
	}
	if got := lateAnswer(nil, nil, time.Second); got != "" {
		t.Errorf("no pings: %q", got)
	}
}
