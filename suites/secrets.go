package suites

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionSecurity, func() {
	// A secret quoted in an error message or a broadcast frame ends up in
	// every client's log and screen: S-1 read for what the server sends,
	// not only for what it writes itself. The credential hello.ok hands to
	// its own device (P-7) is the one exception.
	conformance.It("S-1", rules.MUST, "no frame sent to a client carries a token or credential (but the credential in its own hello.ok)", func(ctx ginkgo.SpecContext) {
		conns := temptFrames(ctx)
		for _, c := range conns {
			c.ScanPendingSecrets()
		}
		leaks := conformance.FrameLeaks()
		if len(leaks) == 0 {
			return
		}
		lines := make([]string, 0, len(leaks))
		for i, l := range leaks {
			if i == maxLeaksShown {
				lines = append(lines, fmt.Sprintf("  … and %d more", len(leaks)-i))
				break
			}
			lines = append(lines, "  "+l.String())
		}
		ginkgo.Fail(fmt.Sprintf("%d frames the run received carry a token or credential (named here by fingerprint only):\n%s", len(leaks), strings.Join(lines, "\n")))
	})
})

// temptFrames walks the paths that tempt a server to quote a secret back:
// an unknown, a used and an identity-carrying token refused, a wrong
// credential refused, a token in a hello of an unsupported version, a reconnect, and a second pairing while another
// device watches. Refusals are judged elsewhere; this only collects what
// came back. It returns the connections whose frames remain to scan.
func temptFrames(ctx context.Context) []*conformance.Conn {
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
