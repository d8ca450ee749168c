package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// FrameLeak is a known token or credential found in a frame the server
// sent. It names the secret by kind and fingerprint only (S-1).
type FrameLeak struct {
	Secret Secret
	Conn   string // the connection that received the frame
	Type   string // the frame's type
	Seq    int64
}

func (l FrameLeak) String() string {
	return fmt.Sprintf("%s in a %s frame (seq %d) received by %s", l.Secret, l.Type, l.Seq, l.Conn)
}

// The run-wide record of frame leaks, filled by every tracked connection
// as its frames are validated.
var (
	frameLeaksMu   sync.Mutex
	frameLeaks     []FrameLeak
	frameLeaksSeen = map[FrameLeak]bool{}
)

// FrameLeaks returns every frame leak recorded so far, in the order found.
func FrameLeaks() []FrameLeak {
	frameLeaksMu.Lock()
	defer frameLeaksMu.Unlock()
	return append([]FrameLeak(nil), frameLeaks...)
}

// scanSecrets records each secret of the run-wide registry that f
// carries. The one legitimate carrier is the credential field of hello.ok
// (P-7): it is left out of the scan.
func (c *Conn) scanSecrets(f client.Frame) {
	raw := f.Raw
	if f.Type == lmp.TypeHelloOK {
		raw = withoutCredential(raw)
	}
	for _, s := range Secrets() {
		if !bytes.Contains(raw, []byte(s.Value)) {
			continue
		}
		l := FrameLeak{Secret: s, Conn: c.Name, Type: f.Type, Seq: f.Seq}
		frameLeaksMu.Lock()
		if !frameLeaksSeen[l] {
			frameLeaksSeen[l] = true
			frameLeaks = append(frameLeaks, l)
		}
		frameLeaksMu.Unlock()
	}
}

// ScanPendingSecrets scans the frames c received but no spec took yet,
// as the spec's end does: for a spec that judges the leaks before it ends.
func (c *Conn) ScanPendingSecrets() {
	for _, f := range c.Pending() {
		c.scanSecrets(f)
	}
}

// withoutCredential re-encodes a hello.ok frame without payload.credential.
func withoutCredential(raw []byte) []byte {
	var env map[string]json.RawMessage
	if json.Unmarshal(raw, &env) != nil {
		return raw
	}
	var payload map[string]json.RawMessage
	if json.Unmarshal(env["payload"], &payload) != nil {
		return raw
	}
	delete(payload, "credential")
	env["payload"], _ = json.Marshal(payload)
	out, err := json.Marshal(env)
	if err != nil {
		return raw
	}
	return out
}
