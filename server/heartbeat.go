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
		sent := time.Now()
		// Never wait for room: a ping that finds the reply queue full is
		// skipped and counts as a miss, as the peer is not reading.
		c.offer(lmp.Ping{}, nil, nil)
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
