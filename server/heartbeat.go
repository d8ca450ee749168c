package server

import (
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// heartbeat pings every PingInterval (T-4) and counts a miss when no pong
// arrives within PongTimeout of a ping; MissedPongs consecutive misses close
// the connection (T-5). Only pong resets the count (note 8). When
// PongTimeout exceeds PingInterval, pings are spaced by PongTimeout instead.
func (c *conn) heartbeat() {
	cfg := c.s.cfg
	// Enforces T-4: the server pings every PingInterval (25 s by default).
	tick := time.NewTicker(cfg.PingInterval)
	defer tick.Stop()
	misses := 0
	for {
		select {
		case <-tick.C:
		case <-c.gone:
			return
		}
		if c.dead.Load() {
			return
		}
		sent, live := c.sendPing(cfg.PongTimeout)
		if !live {
			return
		}
		if !c.waitPong(sent, cfg.PongTimeout) {
			return
		}
		if c.pongSince(sent) {
			misses = 0
			continue
		}
		misses++ // a ping left unanswered for PongTimeout (T-5)
		c.log.Debug("pong missed", "misses", misses)
		// Enforces T-5: MissedPongs consecutive pings without pong within PongTimeout close the connection.
		if misses >= cfg.MissedPongs {
			c.fail(lmp.ClosePolicyViolation, lmp.CodeHeartbeatTimeout, "no pong to the last pings")
			return
		}
	}
}

// sendPing has the writer send a ping ahead of the events and replies it
// has still to write, and returns when the ping went out: the pong timeout
// runs from then, as a client can answer only a ping it has (T-5), and a
// burst of events the peer is still reading must not make its pong late. A
// ping not written within timeout (a peer that takes no frame) returns the
// time it was asked for, so that it counts as a miss. It reports false when
// the connection ended.
func (c *conn) sendPing(timeout time.Duration) (sent time.Time, live bool) {
	asked := time.Now()
	select {
	case <-c.pinged: // the late token of a ping that timed out
	default:
	}
	c.pingDue.Store(true)
	c.notify()
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-c.pinged:
			if at := c.pingWritten.Load(); at >= asked.UnixNano() {
				return time.Unix(0, at), true
			}
		case <-t.C:
			return asked, true
		case <-c.gone:
			return asked, false
		}
	}
}

// waitPong waits out the pong timeout; false when the connection ended.
func (c *conn) waitPong(sent time.Time, timeout time.Duration) bool {
	t := time.NewTimer(time.Until(sent.Add(timeout)))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.gone:
		return false
	}
}

func (c *conn) pongSince(t time.Time) bool { return c.lastPong.Load() >= t.UnixNano() }
