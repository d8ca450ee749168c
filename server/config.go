package server

import (
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// Config configures a Server. Zero values take the spec's defaults.
type Config struct {
	// Name and Version are hello.ok's server_name and server_version.
	// Name defaults to the host name, Version to "dev".
	Name, Version string
	// PublicURL is the ws:// or wss:// URL put in the pairing QR (P-2).
	// When empty it is derived from the pairing request's Host.
	PublicURL string
	// DataDir holds the bbolt store (files 0600, directory 0700). Required.
	DataDir string
	// Hermes is the gateway the server talks to. Required.
	Hermes hermes.Hermes

	// Profile holds the timings and windows: PingInterval (T-4),
	// PongTimeout and MissedPongs (T-5), AuthTimeout (S-4), PairTTL (P-5),
	// ApprovalTimeout, ReplayWindow (E-5), RequestIDWindow (I-1); a zero
	// field takes the spec's default (lmp.DefaultProfile). ApprovalTimeout
	// is how long Hermes waits for an approval (its approvals.timeout):
	// approval.required's deadline_ts is derived from it, as Hermes gives
	// only a monotonic expiry. ReplayWindow is also how far a connection
	// may fall behind before it is a slow consumer (1013).
	lmp.Profile
	// FinalReplyWait (DefaultFinalReplyWait) is how long a turn Hermes
	// reported completed waits for its final reply through send();
	// RunIdleTimeout (DefaultRunIdleTimeout) ends a run none of whose
	// hooks came for that long (note 17).
	FinalReplyWait, RunIdleTimeout time.Duration
	// ShowForks shows each fork of a chat's session (a turn_id with no
	// pre_llm_call: /btw, the background memory and skill review) as a run
	// of its own in the chat, beside the chat's run, which it neither ends
	// nor feeds. Hermes never says when a fork ends: its run completes
	// FinalReplyWait after a successful on_stream_end with no later hook
	// of it (or by the RunIdleTimeout net). Off by default: forks are not
	// shown (docs/protocol.md, note 22); an app must handle either.
	ShowForks bool
	// SendQueue (DefaultSendQueue) is the number of connection-scoped
	// frames (replies, errors, pings) queued per connection; durable events
	// are not queued. When it is full the connection's next request waits
	// for room.
	SendQueue int
	// MaxDeviceConnections (DefaultMaxDeviceConnections) bounds the
	// authenticated connections one device may hold: when a hello would
	// open one more, the device's oldest connection is closed with
	// connection_limit and 1008 (a phone that reconnects on a flaky network
	// leaves half-dead connections the heartbeat has not noticed yet; the
	// newest is the one it uses). MaxConnections (DefaultMaxConnections,
	// lowered to leave descriptors free when the process's descriptor limit
	// is small) bounds the WebSockets of the whole process, authenticated
	// or not: an upgrade over it is refused with 503 before it costs a
	// goroutine, so that /health, pairing and other devices keep working.
	MaxDeviceConnections, MaxConnections int

	// TLSFingerprint is the SHA-256 of the leaf certificate, lowercase hex
	// without colons, put in the QR's fp; "" without TLS (P-2).
	TLSFingerprint string
	// Logger receives the server's logs; nil discards them. Secrets never
	// reach it (S-1).
	Logger *slog.Logger
	// Observer, when set, sees every frame read or written (see
	// FrameObserver); nil for none.
	Observer FrameObserver
}

// Defaults of the Config fields that the lmp package does not define.
const (
	DefaultSendQueue = 256
	// DefaultMaxDeviceConnections is Config.MaxDeviceConnections: a phone
	// needs one; a few more cover reconnects the heartbeat has not yet
	// ended and a second app build on the same credential.
	DefaultMaxDeviceConnections = 8
	// DefaultMaxConnections is Config.MaxConnections where the descriptor
	// limit allows it (maxConnectionsFor).
	DefaultMaxConnections = 4096
	// DefaultVersion is hello.ok's server_version when Config.Version is empty.
	DefaultVersion = "dev"
	// MaxPairTTL caps the ttl a pairing request may ask for.
	MaxPairTTL = 24 * time.Hour
	// seqLeaseBlock is how many global event numbers are reserved in the
	// store at a time (note 4).
	seqLeaseBlock = 1024
)

func (c *Config) applyDefaults() error {
	if c.Hermes == nil {
		return errors.New("server: Config.Hermes is required")
	}
	if c.DataDir == "" {
		return errors.New("server: Config.DataDir is required")
	}
	if c.Name == "" {
		c.Name, _ = os.Hostname()
		if c.Name == "" {
			c.Name = "lmp-server"
		}
	}
	if c.Version == "" {
		c.Version = DefaultVersion
	}
	c.Profile = c.Profile.WithDefaults()
	setDur(&c.FinalReplyWait, DefaultFinalReplyWait)
	setDur(&c.RunIdleTimeout, DefaultRunIdleTimeout)
	setInt(&c.SendQueue, DefaultSendQueue)
	setInt(&c.MaxDeviceConnections, DefaultMaxDeviceConnections)
	setInt(&c.MaxConnections, maxConnectionsFor(descriptorLimit()))
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

func setDur(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

func setInt(n *int, def int) {
	if *n <= 0 {
		*n = def
	}
}
