package suites

import (
	"context"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// Hellos a server must refuse, and how a refusal is checked.

// expectFatalRefusal checks that a hello was refused the way a refusal
// is spelt whatever the codes (note 21): a fatal error, then the close.
func expectFatalRefusal(ctx context.Context, c *conformance.Conn, err error, what string) {
	ginkgo.GinkgoHelper()
	must.That(err != nil, "%s got hello.ok", what)
	must.Refused(ctx, c, err, what)
}

// revokedHello pairs a device, revokes it and sends its hello again on a
// new connection; it returns the device's first connection, the new one
// and the refused hello's error.
func revokedHello(ctx ginkgo.SpecContext) (first, again *conformance.Conn, err error) {
	ginkgo.GinkgoHelper()
	first = must.Pair(ctx, "device")
	revoke(ctx, first.Device.ID)
	again = must.Dial(ctx, "revoked device")
	_, err = again.Hello(ctx, lmp.Hello{DeviceID: first.Device.ID, Credential: first.Device.Credential})
	must.That(err != nil, "a revoked device got hello.ok")
	return first, again, err
}

// secondHello pairs a device and sends a second hello on its connection.
func secondHello(ctx ginkgo.SpecContext) *conformance.Conn {
	ginkgo.GinkgoHelper()
	a := must.Pair(ctx, "device")
	must.Send(ctx, a, lmp.Hello{ProtocolVersion: lmp.Version, DeviceID: a.Device.ID, Credential: a.Device.Credential, DeviceInfo: client.DefaultDeviceInfo})
	return a
}

// expectCodes is the observation of an INFO spec about a refusal: the
// reference server's fatal error with its code, then its close code
// (docs/protocol.md), each reported when it differs. The spec's text names
// neither code (note 21).
func expectCodes(r should.Refusal, code string, closeCode int) {
	var soft must.Soft
	soft.That(r.Fatal(), "want a fatal error followed by a close, got %s", r)
	soft.Equal("error code", r.Code(), code)
	soft.Equal("close code", r.CloseCode(), closeCode)
	soft.Done()
}

// invalidHello sends a hello with a fresh token whose device_info is not
// an object, and waits for the connection to end: a server that cannot
// decode a hello must not log its payload raw.
func invalidHello(ctx context.Context) {
	ginkgo.GinkgoHelper()
	tok := must.Token(ctx)
	hctx, cancel := context.WithTimeout(ctx, conformance.Wait())
	defer cancel()
	c := must.Dial(hctx, "hello that does not decode")
	must.SendJSON(hctx, c, map[string]any{"v": 1, "type": lmp.TypeHello, "payload": map[string]any{
		"protocol_version": lmp.Version, "token": tok, "device_info": "not an object",
	}})
	c.LearnSecret(conformance.SecretToken, tok)
	_, _ = should.Expect(hctx, c, match.Type(lmp.TypeHelloOK, lmp.TypeError)) // its outcome is another rule's business
}
