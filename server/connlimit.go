package server

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// descriptorsReserved are the file descriptors left free below the
// process's limit for everything that is not a WebSocket: the listener,
// the store, /health and pairing requests, the driver API, logs.
const descriptorsReserved = 128

// maxConnectionsFor is the default process-wide connection cap under a
// descriptor limit (0: unknown): DefaultMaxConnections, or less so that
// descriptorsReserved stay free.
func maxConnectionsFor(fdLimit uint64) int {
	n := DefaultMaxConnections
	if fdLimit > 0 && fdLimit < uint64(n+descriptorsReserved) {
		n = max(int(fdLimit)-descriptorsReserved, 16)
	}
	return n
}

// refusedLog rate-limits the log line of refused upgrades: one line per
// second at most, counting those it did not log.
type refusedLog struct {
	last    atomic.Int64 // unix nanos of the last line
	skipped atomic.Int64
}

// admitLocked reports whether one more WebSocket fits under
// Config.MaxConnections; when it does not it answers 503 with Retry-After
// and logs (rate-limited). Called with s.mu held, before the upgrade.
func (s *Server) admitLocked(w http.ResponseWriter, r *http.Request) bool {
	if len(s.conns)+s.upgrading < s.cfg.MaxConnections {
		s.upgrading++ // the slot is held until the upgrade ends
		return true
	}
	now := time.Now().UnixNano()
	if last := s.refused.last.Load(); now-last >= int64(time.Second) && s.refused.last.CompareAndSwap(last, now) {
		s.log.Warn("connection refused: the server holds its maximum of WebSockets",
			"limit", s.cfg.MaxConnections, "remote", r.RemoteAddr, "refused_since_last_line", s.refused.skipped.Swap(0))
	} else {
		s.refused.skipped.Add(1)
	}
	w.Header().Set("Retry-After", "5")
	writeJSON(w, http.StatusServiceUnavailable, lmp.HTTPError{
		Error: "connection_limit: this server holds its maximum of " + strconv.Itoa(s.cfg.MaxConnections) + " connections; try again later",
	})
	return false
}

// supersedeLocked makes room for one more authenticated connection of d:
// while d holds Config.MaxDeviceConnections live connections, the oldest
// is closed with connection_limit and 1008, and logged. Called with s.mu
// held, by hello.
func (c *conn) supersedeLocked(d *device) {
	s := c.s
	for {
		var oldest *conn
		n := 0
		for o := range s.live {
			if o.dev != d || o.dead.Load() {
				continue
			}
			n++
			if oldest == nil || o.id < oldest.id {
				oldest = o
			}
		}
		if n < s.cfg.MaxDeviceConnections {
			return
		}
		delete(s.live, oldest)
		oldest.log.Info("closing the device's oldest connection: over its connection limit",
			"device", d.rec.ID, "limit", s.cfg.MaxDeviceConnections, "newer", c.id)
		oldest.fail(lmp.ClosePolicyViolation, lmp.CodeConnectionLimit,
			"this device opened more than "+strconv.Itoa(s.cfg.MaxDeviceConnections)+" connections: its oldest is closed")
	}
}
