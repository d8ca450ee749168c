package campaign

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

// Validator checks one raw server frame against the schemas and returns one
// line per violation; none means valid.
type Validator func(raw []byte) []string

// preAuthTypes are the only frames a connection may receive before its
// hello.ok: anything else is authenticated state (S-4, F-2).
var preAuthTypes = map[string]bool{
	lmp.TypeError: true, lmp.TypePing: true, lmp.TypePong: true, lmp.TypeHelloOK: true,
}

// wireFrame is the part of a server frame the oracles read.
type wireFrame struct {
	Type    string          `json:"type"`
	Seq     int64           `json:"seq"`
	EventID string          `json:"event_id"`
	Payload json.RawMessage `json:"payload"`
}

// connOracle checks the frames of one connection as they arrive. It is
// used by one goroutine at a time.
type connOracle struct {
	validate Validator
	// validateParses says validate is SchemaValidator (Config.validateParses).
	validateParses bool
	secrets        *secretSet
	// poolDevice reports whether id is one of the campaign's devices.
	poolDevice func(id string) bool

	device    string // the device this connection may authenticate as
	mayAuth   bool   // the episode sends a valid identity or token
	sentToken bool   // the episode pairs with a token

	// oversized is set once the connection sent a frame over
	// lmp.MaxFrameBytes: the server then closes with 1009 while the frame
	// is still arriving, and TCP may reset the connection before the close
	// frame is read. A missing close frame is then no finding.
	oversized bool

	authed      bool
	lastDurable int64
	findings    []Finding
	responses   map[string]bool
	// seen is called with every well-formed frame, to harvest ids.
	seen func(wireFrame)
}

func (o *connOracle) fail(kind, format string, args ...any) {
	msg := o.secrets.redact(fmt.Sprintf(format, args...))
	o.findings = append(o.findings, Finding{Kind: kind, Rule: kindRule[kind], Message: msg})
}

func (o *connOracle) response(key string) {
	if o.responses == nil {
		o.responses = map[string]bool{}
	}
	o.responses[key] = true
}

// frame checks one received message. It returns the frame's envelope,
// decoded once for every oracle and for the caller; ok is false for a
// binary frame or one that is not a JSON envelope.
func (o *connOracle) frame(raw []byte, binary bool) (f wireFrame, ok bool) {
	if binary {
		o.response("binary")
		// T-3: binary frames are reserved; a v1 server never sends one.
		o.fail(KindBinary, "server sent a binary frame of %d bytes", len(raw))
		return f, false
	}
	if len(raw) > lmp.MaxFrameBytes {
		// A phone reading with the kit's frame limit is cut off by such a
		// frame, and by its replay at every reconnect: an echo of client
		// input grew past the limit, or Hermes text was passed on whole.
		o.fail(KindFrameSize, "server sent a frame of %d bytes, over the %d-byte frame limit: %.80q", len(raw), lmp.MaxFrameBytes, raw)
	}
	// The schemas' validator reads the envelope of a frame it passes from
	// its own parse; a frame it parsed and accepted but did not read is
	// well-formed JSON, whose envelope is scanned without parsing it again.
	var errs []string
	validated := o.validate != nil && o.validateParses
	read := false
	if validated {
		var env schema.ServerEnvelope
		env, read, errs = readServerFrame(raw)
		f = wireFrame{Type: env.Type, Seq: env.Seq, EventID: env.EventID, Payload: env.Payload}
	}
	if !read {
		if err := decodeEnvelope(raw, validated && len(errs) == 0, &f); err != nil {
			o.response("not-json")
			o.fail(KindSchema, "server frame is not JSON: %v: %.200q", err, raw)
			return f, false
		}
	}
	key := f.Type
	if f.Type == lmp.TypeError {
		var e struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(f.Payload, &e)
		key += ":" + e.Code
	}
	o.response(key)
	if o.validate != nil {
		if !validated {
			errs = o.validate(raw)
		}
		if len(errs) > 0 {
			o.fail(KindSchema, "%s frame breaks its schema: %s: %.300q", f.Type, errs[0], raw)
		}
	}
	// E-3: event_id names the frame's seq.
	if f.EventID != "e_"+strconv.FormatInt(f.Seq, 10) {
		o.fail(KindSeqOrder, "%s frame: event_id %q does not name seq %d (E-3)", f.Type, f.EventID, f.Seq)
	}
	o.checkSecrets(raw, f)
	if !o.authed && !preAuthTypes[f.Type] {
		o.fail(KindPreAuthLeak, "unauthenticated connection received %s (S-4)", f.Type)
	}
	if f.Type == lmp.TypeHelloOK {
		o.helloOK(f)
	}
	if lmp.IsDurable(f.Type) {
		// E-2: seq increases strictly for each device.
		if o.lastDurable > 0 && f.Seq <= o.lastDurable {
			o.fail(KindSeqOrder, "%s seq %d after seq %d on the same connection (E-2)", f.Type, f.Seq, o.lastDurable)
		}
		o.lastDurable = f.Seq
	}
	if o.seen != nil {
		o.seen(f)
	}
	return f, true
}

func (o *connOracle) helloOK(f wireFrame) {
	var ok struct {
		DeviceID   string  `json:"device_id"`
		Credential *string `json:"credential"`
	}
	_ = json.Unmarshal(f.Payload, &ok)
	switch {
	case !o.mayAuth:
		o.fail(KindPreAuthLeak, "hello.ok for device %s although no hello carried a valid credential or token", ok.DeviceID)
	case ok.Credential != nil && !o.sentToken:
		o.fail(KindSecretLeak, "hello.ok carries a credential although the connection did not pair with a token (P-7)")
	case ok.Credential == nil && o.device != "" && ok.DeviceID != o.device:
		o.fail(KindIdentityLeak, "hello.ok names device %s, the connection authenticated as %s", ok.DeviceID, o.device)
	case ok.Credential != nil && o.poolDevice != nil && o.poolDevice(ok.DeviceID):
		o.fail(KindIdentityLeak, "pairing a new device returned the existing device %s", ok.DeviceID)
	}
	if ok.Credential != nil {
		o.secrets.add(*ok.Credential, ok.DeviceID)
	}
	o.authed = true
}

func (o *connOracle) checkSecrets(raw []byte, f wireFrame) {
	found := o.secrets.find(raw)
	if len(found) == 0 {
		return
	}
	var allowed string
	if f.Type == lmp.TypeHelloOK && o.sentToken {
		// P-7: the hello.ok that pairs a device hands it its credential.
		var ok struct {
			Credential *string `json:"credential"`
		}
		_ = json.Unmarshal(f.Payload, &ok)
		allowed = lmp.Deref(ok.Credential)
	}
	for _, s := range found {
		if s == allowed && countOf(raw, s) == 1 {
			continue
		}
		o.fail(KindSecretLeak, "%s frame carries a secret (%s:%s) (S-1)", f.Type, lmp.Redacted, lmp.Fingerprint(s))
	}
}

func countOf(raw []byte, s string) int {
	n := 0
	for i := 0; i+len(s) <= len(raw); i++ {
		if string(raw[i:i+len(s)]) == s {
			n++
		}
	}
	return n
}

// closed checks how the connection ended. code is -1 when no close frame
// arrived; weClosed says the campaign started the close. A close code is
// judged even then: the server's answer to our 1000 may be its own code.
func (o *connOracle) closed(code int, weClosed bool) {
	o.response("close:" + strconv.Itoa(code))
	if code < 0 {
		if weClosed || o.oversized {
			return // we dropped it ourselves, or the 1009 was lost to a reset
		}
		o.fail(KindAbruptClose, "the server dropped the connection without a close frame")
		return
	}
	if !slices.Contains(lmp.LegitimateCloseCodes, code) {
		o.fail(KindCloseCode, "the server closed with %d, not a legitimate LMP close code", code)
	}
}
