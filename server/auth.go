package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
	"github.com/loomi-lmp/lmpkit/server/store"
)

// handleHello authenticates the connection with its first frame. Every
// refusal here is fatal.
func (c *conn) handleHello(data []byte) {
	read, err := schema.ReadRequest(data)
	f := read.Frame
	if err != nil || f.Type != lmp.TypeHello {
		// F-2, note 10: hello first, refused at once otherwise.
		c.fail(lmp.CloseProtocolError, lmp.CodeHelloRequired, "the first frame must be hello")
		return
	}
	h, err := decodeHello(&read)
	if err != nil {
		c.fail(lmp.CloseProtocolError, lmp.CodeInvalidPayload, "hello payload: "+err.Error())
		return
	}
	if !slices.Contains(lmp.SupportedVersions, h.ProtocolVersion) {
		// Enforces V-2: an unsupported protocol_version is refused, naming the supported ones (note 11).
		c.failWith(killReq{
			code: lmp.CloseProtocolError, errCode: lmp.CodeUnsupportedVersion,
			msg:   fmt.Sprintf("protocol_version %d is not supported; this server speaks %v", h.ProtocolVersion, lmp.SupportedVersions),
			extra: func(e *lmp.Error) { e.SupportedVersions = lmp.SupportedVersions },
		})
		return
	}
	switch {
	case h.Token != "" && (h.DeviceID != "" || h.Credential != ""):
		// Enforces P-6: a token sent with a device identity is refused, not consumed (note 9).
		c.log.Info("hello refused: token with identity", "token", lmp.Fingerprint(h.Token), "device", lmp.Shorten(h.DeviceID))
		c.fail(lmp.ClosePolicyViolation, lmp.CodeTokenWithIdentity, "a pairing token pairs a new device only: send either token or device_id+credential")
	case h.Token != "":
		// Enforces P-3: a hello with token (and no identity) pairs a new device.
		c.pair(h)
	case h.DeviceID != "" && h.Credential != "":
		c.authenticate(h)
	default:
		c.fail(lmp.ClosePolicyViolation, lmp.CodeInvalidCredential, "hello needs a token (P-3) or device_id and credential (P-8)")
	}
}

// pair consumes the token and creates a device (P-3…P-7).
func (c *conn) pair(h lmp.Hello) {
	s := c.s
	fp := lmp.Fingerprint(h.Token)
	if err := s.tokens.consume(h.Token, time.Now()); err != nil { // P-4, P-5
		c.log.Info("pairing refused", "token", fp, "err", err)
		c.fail(lmp.ClosePolicyViolation, lmp.CodeInvalidToken, "pairing token is unknown, already used or expired")
		return
	}
	// Enforces P-7: the new device gets a device_id and a credential of 32 random URL-safe bytes, sent in hello.ok.
	cred := randomSecret()
	rec := store.Device{
		ID: randomID("dev_"), Model: h.DeviceInfo.Model, OS: h.DeviceInfo.OS,
		AppVersion: h.DeviceInfo.AppVersion, CredentialHash: hashCredential(cred),
		CreatedAt: time.Now().UTC(),
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		c.fail(lmp.CloseGoingAway, lmp.CodeShuttingDown, "server is shutting down")
		return
	}
	// The device's seq 1 is the next global event; under s.mu no event can
	// slip between the base and the registration.
	rec.Base = s.events.last
	if err := s.store.PutDevice(rec); err != nil {
		c.log.Error("pairing failed: store", "err", err)
		c.fail(lmp.CloseInternalError, lmp.CodeInternal, "could not store the new device")
		return
	}
	d := &device{rec: rec, idem: newIdemWindow(s.cfg.RequestIDWindow)}
	s.devices[rec.ID] = d
	c.log.Info("device paired", "device", rec.ID, "model", lmp.Shorten(rec.Model), "token", fp, "credential", lmp.Fingerprint(cred))
	c.goLiveLocked(d, &cred, nil)
}

// authenticate checks a paired device's credential (P-8) and replays the
// gap after last_seq (E-5).
func (c *conn) authenticate(h lmp.Hello) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.devices[h.DeviceID]
	stored := dummyHash
	if d != nil {
		stored = d.rec.CredentialHash
	}
	// Enforces P-8: a returning device is let in only with its device_id and matching credential.
	ok := credentialMatches(stored, h.Credential) && d != nil // constant-time compare
	switch {
	case !ok:
		c.log.Info("authentication refused", "device", lmp.Shorten(h.DeviceID), "credential", lmp.Fingerprint(h.Credential))
		c.fail(lmp.ClosePolicyViolation, lmp.CodeInvalidCredential, "unknown device or wrong credential")
		return
	case d.revoked:
		// Enforces S-5: a revoked device can no longer connect (revoke, in http.go, lists and revokes).
		c.log.Info("authentication refused: device revoked", "device", d.rec.ID)
		c.fail(lmp.ClosePolicyViolation, lmp.CodeDeviceRevoked, "this device has been revoked")
		return
	case s.closing:
		c.fail(lmp.CloseGoingAway, lmp.CodeShuttingDown, "server is shutting down")
		return
	}
	c.log.Info("device connected", "device", d.rec.ID, "model", lmp.Shorten(d.rec.Model), "credential", lmp.Fingerprint(h.Credential), "last_seq", lastSeqAttr(h.LastSeq))
	c.goLiveLocked(d, nil, h.LastSeq)
}

// goLiveLocked registers the connection for live events and queues
// hello.ok with the connection's place in the shared log, all under s.mu:
// the writer writes hello.ok, the replayed gap, then every event after
// its cursor, so an event published before this is replayed and one
// published after is written live, never lost or sent twice (E-5, E-7).
func (c *conn) goLiveLocked(d *device, credential *string, lastSeq *int64) {
	s := c.s
	c.supersedeLocked(d)
	intro, truncated := s.replayLocked(d, lastSeq)
	c.dev = d
	ok := lmp.HelloOK{
		DeviceID: d.rec.ID, Credential: credential,
		ServerName: s.cfg.Name, ServerVersion: s.cfg.Version,
		ProtocolVersion: lmp.Version, // V-2
		// Enforces T-8: hello.ok carries server_time for the client's clock offset.
		ServerTime: lmp.Timestamp(time.Now()),
		Truncated:  truncated, // E-6
	}
	raw, _ := json.Marshal(ok)
	intro.helloOK = scoped{typ: lmp.TypeHelloOK, payload: raw}
	c.authed.Store(true)
	c.limit.Store(intro.after + int64(s.cfg.ReplayWindow))
	if c.push(outItem{intro: intro}, pushForce) {
		s.live[c] = struct{}{}
		go c.heartbeat()
		if s.storeDown.reason != "" {
			c.storeUnavailable(s.storeDown.reason)
		}
	}
}
