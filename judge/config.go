package judge

import (
	"io"
	"time"
)

// Config is one app run.
type Config struct {
	// Listen is the judge's plaintext listen address, default
	// 127.0.0.1:8789. One that is not loopback (a phone on the LAN) needs
	// LOOMI_ALLOW_INSECURE_BIND=true, as lmp-server does (S-3).
	Listen string
	// PublicURL is the ws:// URL the pairing JSON names, for an app that
	// reaches the judge at another address (an emulator: ws://10.0.2.2:8789/ws).
	PublicURL string
	// PairingFile, when set, receives the pairing JSON each time a token is
	// minted, atomically.
	PairingFile string
	// Timings; zero takes the default.
	Timings Timings
	// Select reports whether a spec is selected (--label-filter, --focus,
	// --skip); nil selects every spec. A scenario plays when one of its
	// specs is selected.
	Select func(Spec) bool
	// Out receives what a person running the check follows: the QR, each
	// step and what to do. Nil discards it.
	Out io.Writer
	// QRInvert draws the terminal QR for a light theme.
	QRInvert bool
}

// Timings bound every wait of an app run.
type Timings struct {
	// PongTimeout is how soon a pong must follow a ping (T-5: 10 s).
	PongTimeout time.Duration
	// FirstContact is how long the judge waits for the app to pair
	// (default 5 minutes, the token's TTL).
	FirstContact time.Duration
	// ActionTimeout is how long an app has to do what an action asks
	// (default 2 minutes: a person reads the notification and acts).
	ActionTimeout time.Duration
	// Reconnect is how long the app has to come back after the judge
	// closes or drops its connection (default 60 s).
	Reconnect time.Duration
	// Quiet is how long the judge watches an app that must stay quiet
	// (after protocol_version 2; default 15 s).
	Quiet time.Duration
	// Burst is the number of events of the burst (default 600).
	Burst int
}

// DefaultTimings are the timings of a run against a phone.
func DefaultTimings() Timings {
	return Timings{PongTimeout: 10 * time.Second, FirstContact: 5 * time.Minute, ActionTimeout: 2 * time.Minute,
		Reconnect: 60 * time.Second, Quiet: 15 * time.Second, Burst: 600}
}

func (t Timings) withDefaults() Timings {
	d := DefaultTimings()
	set := func(dst *time.Duration, def time.Duration) {
		if *dst <= 0 {
			*dst = def
		}
	}
	set(&t.PongTimeout, d.PongTimeout)
	set(&t.FirstContact, d.FirstContact)
	set(&t.ActionTimeout, d.ActionTimeout)
	set(&t.Reconnect, d.Reconnect)
	set(&t.Quiet, d.Quiet)
	if t.Burst <= 0 {
		t.Burst = d.Burst
	}
	return t
}
