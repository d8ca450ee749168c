package driver

import (
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// ProfileOf is p as the driver API serves it (GET /profile), in
// milliseconds.
func ProfileOf(p lmp.Profile) Profile {
	return Profile{
		PingIntervalMS: p.PingInterval.Milliseconds(), PongTimeoutMS: p.PongTimeout.Milliseconds(),
		MissedPongs: p.MissedPongs, AuthTimeoutMS: p.AuthTimeout.Milliseconds(), PairTTLMS: p.PairTTL.Milliseconds(),
		ApprovalTimeoutMS: p.ApprovalTimeout.Milliseconds(),
		ReplayWindow:      p.ReplayWindow, RequestIDWindow: p.RequestIDWindow,
	}
}

// Timings is the profile's timings and windows as an lmp.Profile.
func (p Profile) Timings() lmp.Profile {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	return lmp.Profile{
		PingInterval: ms(p.PingIntervalMS), PongTimeout: ms(p.PongTimeoutMS), MissedPongs: p.MissedPongs,
		AuthTimeout: ms(p.AuthTimeoutMS), PairTTL: ms(p.PairTTLMS), ApprovalTimeout: ms(p.ApprovalTimeoutMS),
		ReplayWindow: p.ReplayWindow, RequestIDWindow: p.RequestIDWindow,
	}
}
