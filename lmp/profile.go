package lmp

import (
	"fmt"
	"time"
)

// Profile is a server's timings and windows: the one type that carries them
// from a command line or a driver API to the server that enforces them and
// to the conformance specs that derive their waits from them. A zero field
// means the spec's default (WithDefaults).
type Profile struct {
	PingInterval time.Duration // T-4
	PongTimeout  time.Duration // T-5
	MissedPongs  int           // T-5
	AuthTimeout  time.Duration // S-4, note 10
	PairTTL      time.Duration // P-5
	// ApprovalTimeout is how long Hermes waits for an approval (its
	// approvals.gateway_timeout, note 15); approval.required's deadline_ts
	// is derived from it.
	ApprovalTimeout time.Duration
	ReplayWindow    int // E-5
	RequestIDWindow int // I-1
}

// DefaultProfile is the spec's defaults (25 s / 10 s / 3 / 10 s / 300 s /
// 300 s / 512 / 256).
func DefaultProfile() Profile {
	return Profile{
		PingInterval: DefaultPingInterval, PongTimeout: DefaultPongTimeout, MissedPongs: DefaultMissedPongs,
		AuthTimeout: DefaultAuthTimeout, PairTTL: DefaultPairTTL, ApprovalTimeout: DefaultApprovalTimeout,
		ReplayWindow: DefaultReplayWindow, RequestIDWindow: DefaultRequestIDWindow,
	}
}

// WithDefaults returns p with each zero or negative field set to the
// spec's default.
func (p Profile) WithDefaults() Profile {
	return p.orElse(DefaultProfile())
}

// Override returns p with every positive field of o put in its place: how
// explicit settings (flags) win over a profile learned elsewhere.
func (p Profile) Override(o Profile) Profile {
	return o.orElse(p)
}

// orElse takes each field of p that is positive, else def's.
func (p Profile) orElse(def Profile) Profile {
	dur := func(v, d time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return d
	}
	n := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	return Profile{
		PingInterval: dur(p.PingInterval, def.PingInterval), PongTimeout: dur(p.PongTimeout, def.PongTimeout),
		MissedPongs: n(p.MissedPongs, def.MissedPongs), AuthTimeout: dur(p.AuthTimeout, def.AuthTimeout),
		PairTTL: dur(p.PairTTL, def.PairTTL), ApprovalTimeout: dur(p.ApprovalTimeout, def.ApprovalTimeout),
		ReplayWindow: n(p.ReplayWindow, def.ReplayWindow), RequestIDWindow: n(p.RequestIDWindow, def.RequestIDWindow),
	}
}

// IsZero reports whether p sets nothing.
func (p Profile) IsZero() bool { return p == Profile{} }

// Deviations lists every way p differs from the spec's defaults. The
// approval timeout is not among them: the spec names none (note 15).
func (p Profile) Deviations() []string {
	s := DefaultProfile()
	var out []string
	check := func(name string, got, want any) {
		if got != want {
			out = append(out, fmt.Sprintf("%s is %v, the spec says %v", name, got, want))
		}
	}
	check("ping interval (T-4)", p.PingInterval, s.PingInterval)
	check("pong timeout (T-5)", p.PongTimeout, s.PongTimeout)
	check("missed pongs (T-5)", p.MissedPongs, s.MissedPongs)
	check("auth timeout (S-4)", p.AuthTimeout, s.AuthTimeout)
	check("pairing token TTL (P-5)", p.PairTTL, s.PairTTL)
	check("replay window (E-5)", p.ReplayWindow, s.ReplayWindow)
	check("request_id window (I-1)", p.RequestIDWindow, s.RequestIDWindow)
	return out
}

// String is one line naming the profile's timings and windows.
func (p Profile) String() string {
	return fmt.Sprintf("ping %v, pong timeout %v, %d missed pongs, auth timeout %v, token TTL %v, approval timeout %v, replay window %d, request_id window %d",
		p.PingInterval, p.PongTimeout, p.MissedPongs, p.AuthTimeout, p.PairTTL, p.ApprovalTimeout,
		p.ReplayWindow, p.RequestIDWindow)
}
