package campaign

// Oracle names: the Kind of a Finding.
const (
	KindHealth        = "health"         // T-2: /health stopped answering {"ok":true,"v":1}
	KindMonitorGap    = "monitor-gap"    // E-2, E-5: the monitor missed a seq
	KindMonitorOrder  = "monitor-order"  // E-2: the monitor saw seq go back or repeat
	KindMonitorSilent = "monitor-silent" // the monitor stopped hearing from the server
	KindMonitorLost   = "monitor-lost"   // the monitor could not reconnect
	KindSchema        = "schema"         // E-1, F-1: a server frame breaks its schema
	KindBinary        = "binary-frame"   // T-3: the server sent a binary frame
	KindSecretLeak    = "secret-leak"    // S-1: a secret appeared in a frame
	KindCloseCode     = "close-code"     // the server closed with an illegitimate code
	KindAbruptClose   = "abrupt-close"   // the connection ended without a close frame
	KindPreAuthLeak   = "preauth-leak"   // S-4, F-2: an unauthenticated connection got state
	KindIdentityLeak  = "identity-leak"  // a connection was given another device's identity
	KindSeqOrder      = "seq-order"      // E-2, E-3: durable seq not increasing on a connection, or event_id wrong
	KindDoubleWin     = "double-win"     // M-2: two devices both won one approval
	KindFrameSize     = "frame-size"     // a server frame larger than lmp.MaxFrameBytes (amplification)
)

// Finding is one oracle violation. Messages never hold a secret: secrets
// are replaced by their fingerprint before a finding is made (S-1).
type Finding struct {
	ID      string  `json:"id"`
	Kind    string  `json:"kind"`
	Rule    string  `json:"rule,omitempty"`
	Message string  `json:"message"`
	At      float64 `json:"at"` // seconds since the campaign started
	// Episode is the kind of episode that found it, when one connection did.
	Episode string `json:"episode,omitempty"`
	// Reproducer is the file the finding was saved to, when saved.
	Reproducer string `json:"reproducer,omitempty"`
	// Frames is how many frames the reproducer sends.
	Frames int `json:"frames,omitempty"`
	// Shrunk says whether the reproducer was reduced and still reproduces.
	Shrunk bool `json:"shrunk"`
}

// kindRule maps each oracle to the rule it guards.
var kindRule = map[string]string{
	KindHealth: "T-2", KindMonitorGap: "E-5", KindMonitorOrder: "E-2", KindMonitorSilent: "T-6",
	KindMonitorLost: "P-8", KindSchema: "F-1", KindBinary: "T-3", KindSecretLeak: "S-1",
	KindCloseCode: "T-1", KindAbruptClose: "T-1", KindPreAuthLeak: "S-4", KindIdentityLeak: "P-8",
	KindSeqOrder: "E-2", KindDoubleWin: "M-2",
}
