package suites

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionSecurity, func() {
	conformance.It("S-1", rules.MUST, "no token or credential the run has seen appears in the server log", func(ctx ginkgo.SpecContext) {
		path := target(ctx).ServerLog
		if path == "" {
			ginkgo.Skip(conformance.SkipNoServerLog)
		}
		markers := temptLogging(ctx)

		// Servers buffer their logs: wait until this spec's last pairing
		// shows up before scanning, or until the deadline.
		waitCtx, cancel := context.WithTimeout(ctx, conformance.Wait())
		start := time.Now()
		logged, err := conformance.WaitLog(waitCtx, path, markers...)
		cancel()
		must.Succeed(err, "read the server log %s", path)

		secrets := conformance.Secrets()
		leaks, lines, err := conformance.ScanLog(path, secrets)
		must.Succeed(err, "read the server log %s", path)
		if logged {
			ginkgo.AddReportEntry("server log", fmt.Sprintf("the log mentioned this spec's last pairing after %v; scanned %d lines of %s for %d secrets",
				time.Since(start).Round(time.Millisecond), lines, path, len(secrets)))
		} else {
			if lines == 0 {
				ginkgo.Skip(fmt.Sprintf("the server log %s stayed empty while devices paired: is it the file the server writes?", path))
			}
			ginkgo.AddReportEntry("server log", fmt.Sprintf("the log never mentioned this spec's last pairing (device ID or fingerprints) within %v; scanned the %d lines it had for %d secrets",
				conformance.Wait(), lines, len(secrets)))
		}
		if len(leaks) > 0 {
			// Named by fingerprint and line number only: the message goes
			// into every report (S-1).
			slices.SortStableFunc(leaks, func(a, b conformance.Leak) int { return a.Lines[0] - b.Lines[0] })
			var names []string
			for i, l := range leaks {
				if i == maxLeaksShown {
					names = append(names, fmt.Sprintf("  … and %d more", len(leaks)-i))
					break
				}
				names = append(names, "  "+l.String())
			}
			ginkgo.Fail(fmt.Sprintf("the server log %s holds %d of the %d tokens and credentials this run has seen (S-1: only %s or an 8-character fingerprint may appear):\n%s",
				path, len(leaks), len(secrets), lmp.Redacted, strings.Join(names, "\n")))
		}
	}, conformance.ReadsServerLog)
})

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

// invalidHello sends a hello with a fresh token whose device_info is not
// an object, and waits for the connection to end: a server that cannot
// decode a hello must not log its payload raw.
func invalidHello(ctx context.Context) {
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
