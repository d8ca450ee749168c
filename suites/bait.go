package suites

import (
	"context"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// Secrets the specs tempt a server to leak, in its log and in frames.

// maxLeaksShown bounds the leaked secrets a failure lists, in log order.
const maxLeaksShown = 20

// temptLogging walks the paths that tempt a server to log secrets: a
// token minted, a device paired with it, the device reconnecting with its
// credential, a wrong credential, the used token again, a token sent with
// an identity, a token in a hello the server cannot decode, and finally a
// second pairing. Refusals are not judged here
// (the pairing and auth sections do that). It returns text the server
// likely logs about the last pairing, none of it secret: the device ID
// and the fingerprints of its token and credential.
func temptLogging(ctx context.Context) []string {
	ginkgo.GinkgoHelper()
	tok := must.Token(ctx)
	a, err := should.PairWith(ctx, "device", tok)
	must.Succeed(err)
	must.Connect(ctx, "device again", a.Device, ptr(int64(0)))

	refused := func(name string, h lmp.Hello) {
		hctx, cancel := context.WithTimeout(ctx, conformance.Wait())
		defer cancel()
		c := must.Dial(hctx, name)
		_, _ = c.Hello(hctx, h) // its outcome is another rule's business
	}
	refused("wrong credential", lmp.Hello{DeviceID: a.Device.ID, Credential: should.NewID("wrong-credential-")})
	refused("used token", lmp.Hello{Token: tok})
	refused("token with identity", lmp.Hello{Token: must.Token(ctx), DeviceID: a.Device.ID, Credential: a.Device.Credential})
	invalidHello(ctx)

	last := must.Token(ctx)
	b, err := should.PairWith(ctx, "last device", last)
	must.Succeed(err)
	return []string{b.Device.ID, lmp.Fingerprint(last), lmp.Fingerprint(b.Device.Credential)}
}

// temptFrames walks the paths that tempt a server to quote a secret back:
// an unknown, a used and an identity-carrying token refused, a wrong
// credential refused, a token in a hello of an unsupported version, a reconnect, and a second pairing while another
// device watches. Refusals are judged elsewhere; this only collects what
// came back. It returns the connections whose frames remain to scan.
func temptFrames(ctx context.Context) []*conformance.Conn {
	ginkgo.GinkgoHelper()
	watcher := must.Pair(ctx, "watching device")
	tok := must.Token(ctx)
	a, err := should.PairWith(ctx, "device", tok)
	must.Succeed(err)
	refused := func(name string, h lmp.Hello) {
		hctx, cancel := context.WithTimeout(ctx, conformance.Wait())
		defer cancel()
		c := must.Dial(hctx, name)
		_, _ = c.Hello(hctx, h) // the refusal, if any, is read and scanned
	}
	refused("unknown token", lmp.Hello{Token: should.NewID("unknown-token-")})
	refused("used token", lmp.Hello{Token: tok})
	refused("token with identity", lmp.Hello{Token: must.Token(ctx), DeviceID: a.Device.ID, Credential: a.Device.Credential})
	refused("wrong credential", lmp.Hello{DeviceID: a.Device.ID, Credential: should.NewID("wrong-credential-")})
	refused("unsupported version", lmp.Hello{ProtocolVersion: 99, Token: must.Token(ctx)})
	again := must.Connect(ctx, "device again", a.Device, ptr(int64(0)))
	last := must.Pair(ctx, "last device")
	// A ping answered on each connection: what came before it has arrived.
	for _, c := range []*conformance.Conn{watcher, again, last} {
		must.Send(ctx, c, lmp.Ping{})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
	}
	return []*conformance.Conn{watcher, a, again, last}
}
