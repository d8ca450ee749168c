package suites

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// The server as a phone on the LAN sees it: at an address that is not
// loopback. These specs run when such an address reaches the target (its
// URL names one, or it listens on every interface of this host; see
// conformance.LANBases) and skip otherwise.
var _ = conformance.Section(sectionLAN, func(specs *conformance.Specs) {
	specs.It("P-1", rules.MUST, "a peer at a network address gets no pairing token, whatever Host it names", func(ctx ginkgo.SpecContext) {
		// lmp-v1.md §3: the pairing endpoint is loopback only. A peer on
		// the network may name any Host, a loopback one included, so the
		// server must judge the peer's address. Certificates are not
		// checked: an attacker on the LAN checks none.
		attacker := &http.Client{Timeout: conformance.Wait(), Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the attacker's view
		}}
		defer attacker.CloseIdleConnections()
		var soft must.Soft
		for _, b := range lanBases(ctx) {
			_, port, _ := net.SplitHostPort(b.Host)
			for _, host := range []string{b.Host, net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("localhost", port)} {
				status, minted, err := pairFrom(ctx, attacker, b.HTTP+lmp.PathPairNew, host)
				if err != nil {
					continue // refused before HTTP: also no token
				}
				soft.That(!minted, "POST %s%s from the network peer %s with Host %s: HTTP %d with a pairing token; the pairing endpoint is loopback only (P-1)",
					b.HTTP, lmp.PathPairNew, b.Host, host, status)
			}
		}
		soft.Done()
	})

	specs.It("S-6", rules.MUST, "a phone pairs at the network address of the pairing JSON's url and is answered there", func(ctx ginkgo.SpecContext) {
		// What a phone on the LAN does (lmp-v1.md §3): scan the QR, connect
		// to its url, send hello with the token.
		wsURL, token := networkQR(ctx)
		c, err := should.PairOn(ctx, "phone on the network", token, func(ctx context.Context) (*conformance.Conn, error) {
			c, err := conformance.DialAt(ctx, "phone on the network", wsURL, nil)
			skipOnCertificate(err, wsURL)
			if err != nil {
				return nil, fmt.Errorf("WebSocket upgrade at the pairing JSON's url %s: %w", wsURL, err)
			}
			return c, nil
		})
		must.Succeed(err, "pair at %s", wsURL)
		must.Send(ctx, c, lmp.Ping{})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
	})

	specs.It("T-2,S-6", rules.MUST, `GET /health at the network address of the pairing JSON's url answers {"ok":true,"v":1}`, func(ctx ginkgo.SpecContext) {
		// lmp-v1.md §1: /health is there for reverse proxies and probes,
		// which reach the server over the network.
		wsURL, _ := networkQR(ctx)
		u, err := client.HealthURLFor(wsURL)
		must.Succeed(err)
		resp, err := getHealth(ctx, u)
		skipOnCertificate(err, u)
		must.Succeed(err, "GET %s", u)
		requireHealthy(resp, u)
	})
})
