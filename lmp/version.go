package lmp

import "time"

// Version is the protocol version this package speaks (envelope field v).
const Version = 1

// SupportedVersions lists every protocol_version a v1 server accepts in hello (V-2, note 11).
var SupportedVersions = []int{Version}

// Defaults from the spec. Servers may make them configurable; conformance
// checks run with --strict treat any other value as a deviation.
const (
	DefaultPingInterval    = 25 * time.Second  // T-4
	DefaultPongTimeout     = 10 * time.Second  // T-5
	DefaultMissedPongs     = 3                 // T-5
	DefaultAuthTimeout     = 10 * time.Second  // S-4, note 10
	DefaultPairTTL         = 300 * time.Second // P-5
	DefaultReplayWindow    = 512               // E-5
	DefaultRequestIDWindow = 256               // I-1
	DefaultApprovalTimeout = 300 * time.Second // Hermes' gateway approval wait (note 15)
)

// Paths served by an LMP endpoint.
const (
	PathWebSocket = "/ws"                // T-1
	PathHealth    = "/health"            // T-2
	PathPairNew   = "/internal/pair/new" // P-1
)
