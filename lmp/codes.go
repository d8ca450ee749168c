package lmp

// Error codes carried in error.payload.code. The spec names only
// already_resolved (I-2); the others are the reference server's answers to
// the open points in notes.md, documented in docs/protocol.md.
const (
	CodeAlreadyResolved      = "already_resolved"      // I-2
	CodeHelloRequired        = "hello_required"        // F-2, note 10: first frame is not hello (fatal)
	CodeAlreadyAuthenticated = "already_authenticated" // note 16: second hello (non-fatal)
	CodeUnsupportedVersion   = "unsupported_version"   // V-2, note 11 (fatal)
	CodeInvalidToken         = "invalid_token"         // P-4, P-5: unknown, used or expired token (fatal)
	CodeTokenWithIdentity    = "token_with_identity"   // P-6, note 9 (fatal)
	CodeInvalidCredential    = "invalid_credential"    // P-8: unknown device or wrong credential (fatal)
	CodeDeviceRevoked        = "device_revoked"        // S-5 (fatal)
	CodeAuthTimeout          = "auth_timeout"          // S-4 (fatal)
	CodeHeartbeatTimeout     = "heartbeat_timeout"     // T-5 (fatal)
	CodeBadFrame             = "bad_frame"             // malformed JSON or envelope (non-fatal once authenticated)
	CodeInvalidPayload       = "invalid_payload"       // a known type whose payload breaks its schema (non-fatal)
	CodeBinaryFrame          = "binary_frame"          // T-3, note 12 (fatal, close 1003)
	CodeInvalidUTF8          = "invalid_utf8"          // T-3: a text frame that is not UTF-8 (fatal, close 1007)
	CodeUnknownRun           = "unknown_run"           // run.cancel/pause/resume names no known run
	CodeUnknownApproval      = "unknown_approval"      // approval.resolve names no pending approval
	CodeUnknownTask          = "unknown_task"          // session.send names no known task
	CodeHermesUnavailable    = "hermes_unavailable"    // the Hermes side failed the call
	CodeSlowConsumer         = "slow_consumer"         // fell out of the replay window (fatal, close 1013)
	CodeShuttingDown         = "shutting_down"         // server is stopping (fatal, close 1001)
	CodeInternal             = "internal"              // unexpected server error
	CodeHelloTooLarge        = "hello_too_large"       // a frame before hello over the server's hello budget (fatal, close 1009)
	CodeConnectionLimit      = "connection_limit"      // the device opened more connections than allowed: its oldest is closed (fatal, close 1008)
	CodeStoreUnavailable     = "store_unavailable"     // the server's store refuses writes: events are held back, session.send refused (non-fatal)
)

// WebSocket close codes used by the reference server (RFC 6455 §7.4.1).
const (
	CloseNormal          = 1000
	CloseGoingAway       = 1001 // server shutdown
	CloseProtocolError   = 1002 // first frame not hello, unsupported version
	CloseUnsupportedData = 1003 // binary frame (note 12)
	CloseInvalidData     = 1007 // text frame that is not valid UTF-8 (RFC 6455 §8.1)
	ClosePolicyViolation = 1008 // auth failure, auth timeout, revoked, heartbeat timeout
	CloseMessageTooBig   = 1009 // frame over the read limit
	CloseInternalError   = 1011
	CloseTryAgainLater   = 1013 // slow consumer
)

// LegitimateCloseCodes are the close codes an LMP server may use; anything
// else seen by a fuzz campaign is a finding.
var LegitimateCloseCodes = []int{
	CloseNormal, CloseGoingAway, CloseProtocolError, CloseUnsupportedData,
	CloseInvalidData, ClosePolicyViolation, CloseMessageTooBig, CloseInternalError, CloseTryAgainLater,
}

// MaxFrameBytes is the reference server's frame limit. A larger client
// frame is answered with close 1009; the server never sends a larger frame
// (the limits of limits.go keep every echo of a client's strings below
// it, and the server shortens an event from Hermes that would not fit).
const MaxFrameBytes = 1 << 20
