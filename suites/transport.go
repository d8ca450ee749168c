package suites

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"

	"github.com/coder/websocket"
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionTransport, func(specs *conformance.Specs) {
	specs.It("T-2", rules.MUST, `GET /health answers {"ok":true,"v":1} without authentication`, func(ctx ginkgo.SpecContext) {
		u, err := target(ctx).HealthURL()
		must.Succeed(err)
		resp, err := getHealth(ctx, u)
		must.Succeed(err, "GET %s", u)
		requireHealthy(resp, u)
	})

	specs.It("T-1,P-3,P-7", rules.MUST, "the WebSocket at /ws accepts a new device that pairs with a token", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.That(c.Device.ID != "", "hello.ok after pairing has an empty device_id")
	})

	specs.It("T-3", rules.MUST, "server frames are text frames of UTF-8 JSON", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		f := must.Expect(ctx, c, match.Type(lmp.TypePong))
		must.That(!f.Binary, "pong arrived as a binary frame")
		// Every other frame is checked for the same when the spec ends.
	})

	specs.It("T-3", rules.SHOULD, "a binary frame gets close 1003 or a non-fatal error, and the server keeps serving (note 12)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Succeed(c.SendRaw(ctx, websocket.MessageBinary, []byte{0x01, 0x02, 0xff}))
		r := should.AwaitRefusal(ctx, c, nil)
		var soft must.Soft
		switch {
		case r.Close != nil:
			soft.Equal("close code after a binary frame", r.CloseCode(), lmp.CloseUnsupportedData)
		case r.Error == nil:
			soft.That(false, "a binary frame: want close 1003 or a non-fatal error, got %s", r)
		default: // a non-fatal error: the connection keeps working
			must.Send(ctx, c, lmp.Ping{})
			_, err := should.Expect(ctx, c, match.Type(lmp.TypePong))
			soft.That(err == nil, "after a non-fatal error for a binary frame, a ping: %v", err)
		}
		// The server did not crash.
		other := must.Pair(ctx, "another device")
		must.Send(ctx, other, lmp.Ping{})
		_, err := should.Expect(ctx, other, match.Type(lmp.TypePong))
		soft.That(err == nil, "after a binary frame, another device's ping: %v", err)
		soft.Done()
	})

	specs.It("T-3", rules.INFO, "a binary frame gets a fatal binary_frame error and close 1003 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Succeed(c.SendRaw(ctx, websocket.MessageBinary, []byte{0x01, 0x02, 0xff}))
		expectCodes(should.AwaitRefusal(ctx, c, nil), lmp.CodeBinaryFrame, lmp.CloseUnsupportedData)
	})

	specs.It("T-6", rules.MUST, "a client ping is answered with pong", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		for range 3 {
			must.Send(ctx, c, lmp.Ping{})
			must.Expect(ctx, c, match.Type(lmp.TypePong))
		}
	})

	// A clock read in whole seconds leaves the client's offset up to a
	// second off (T-8). One whole second is chance (one in a thousand for
	// a clock in milliseconds); four in a row are a clock without fractions,
	// as checkTimestamps holds for the envelope's ts.
	specs.It("T-7,T-8", rules.MUST, "server_time is float epoch seconds: the server_time of four hello.ok are not all whole seconds", func(ctx ginkgo.SpecContext) {
		const n = 4
		var times []float64
		for i := range n {
			c := must.Pair(ctx, fmt.Sprintf("device %d", i+1))
			times = append(times, c.HelloOK.ServerTime)
			must.Succeed(c.Close(), "close device %d", i+1)
		}
		must.That(slices.ContainsFunc(times, func(t float64) bool { return t != math.Trunc(t) }),
			"the server_time of %d hello.ok in a row is a whole second (%v): not float seconds, and the client's clock offset is up to a second off", n, times)
	})

	specs.It("T-7,T-8", rules.MUST, "timestamps are float epoch seconds and hello.ok carries server_time", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		pong := must.Expect(ctx, c, match.Type(lmp.TypePong))
		expectEpochSeconds(c.HelloOK.ServerTime, "hello.ok server_time")
		expectEpochSeconds(pong.TS, "pong ts")
		// A timestamp encoded as a string fails the envelope schema.
		_, isNumber := rawEnvelope(pong)["ts"].(float64)
		must.That(isNumber, "pong ts is not a JSON number: %s", pong.Raw)
	})
})

var _ = conformance.Section(sectionTransport, func(specs *conformance.Specs) {
	// T-1 names the path; a URL's query string is not part of it (RFC 3986
	// §3.4), and RFC 6455 §3 makes it part of the resource name a client
	// may send. A server may ignore the parameters, not refuse the upgrade.
	specs.It("T-1", rules.MUST, "the WebSocket at /ws is served when its URL carries a query string: the path is still /ws", func(ctx ginkgo.SpecContext) {
		u, err := url.Parse(target(ctx).WSURL)
		must.Succeed(err, "parse %s", target(ctx).WSURL)
		q := u.Query()
		q.Set("client", "lmp-check")
		u.RawQuery = q.Encode()
		_, err = should.PairOn(ctx, "device, query string", must.Token(ctx), func(ctx context.Context) (*conformance.Conn, error) {
			return conformance.DialAt(ctx, "device, query string", u.String(), nil)
		})
		must.Succeed(err, "pair at %s", u)
	})

	specs.It("T-1", rules.MUST, "the WebSocket upgrade at /ws is answered at /ws itself, not through a redirect", func(ctx ginkgo.SpecContext) {
		// Probes, proxies and many WebSocket clients do not follow a
		// redirect of the upgrade request (to /ws/, say): T-1 puts the
		// WebSocket at /ws.
		hc := http.Client{}
		if t := target(ctx).HTTPClient; t != nil {
			hc = *t
		}
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		opts := *target(ctx).DialOptions()
		opts.HTTPClient = &hc
		_, err := should.PairOn(ctx, "device, no redirects", must.Token(ctx), func(ctx context.Context) (*conformance.Conn, error) {
			return conformance.DialAt(ctx, "device, no redirects", target(ctx).WSURL, &opts)
		})
		must.Succeed(err, "pair at %s without following redirects", target(ctx).WSURL)
	})
})

var _ = conformance.Section(sectionTransport, func(specs *conformance.Specs) {
	specs.It("T-3", rules.MUST, "a text frame that is not UTF-8 is not served on an authenticated connection", func(ctx ginkgo.SpecContext) {
		// A frame that would be a ping, but for a byte that is no UTF-8:
		// whatever the server does with it (an error, a close), it is no
		// frame of LMP and gets no pong.
		c := must.Pair(ctx, "device")
		bad := []byte(`{"v":1,"type":"ping","payload":{"note":"` + "\xff\xfe" + `"}}`)
		must.Succeed(c.SendRaw(ctx, websocket.MessageText, bad))
		f, err := should.Expect(ctx, c, match.Type(lmp.TypePong, lmp.TypeError))
		must.That(err != nil || f.Type != lmp.TypePong, "a text frame holding invalid UTF-8 was served: answered with %s", c.Describe(f))
	})

	specs.It("T-3", rules.MUST, "a hello that is not UTF-8 does not pair a device", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		tok := must.Token(ctx)
		conformance.RecordSecret(conformance.SecretToken, tok)
		raw, err := json.Marshal(map[string]any{"v": lmp.Version, "type": lmp.TypeHello, "payload": map[string]any{
			"protocol_version": lmp.Version, "token": tok,
			"device_info": map[string]any{"model": "MODEL", "os": "go", "app_version": "1"},
		}})
		must.Succeed(err)
		bad := bytes.Replace(raw, []byte("MODEL"), []byte("phone \xff\xfe"), 1)
		must.Succeed(c.SendRaw(ctx, websocket.MessageText, bad))
		f, err := should.Expect(ctx, c, match.Type(lmp.TypeHelloOK, lmp.TypeError))
		must.That(err != nil || f.Type != lmp.TypeHelloOK, "a hello holding invalid UTF-8 paired a device: answered with %s", c.Describe(f))
	})

	specs.It("S-6", rules.MUST, "the WebSocket works through a reverse proxy adding forwarding headers: a device pairs and is served", func(ctx ginkgo.SpecContext) {
		// A reverse proxy on this host, as nginx with the Upgrade headers of
		// lmp-v1.md §3: it forwards the upgrade with X-Forwarded-For,
		// -Host and -Proto. The token is minted directly (the pairing
		// endpoint is loopback only); the WebSocket goes through the proxy.
		u, err := url.Parse(target(ctx).WSURL)
		must.Succeed(err)
		backend := &url.URL{Scheme: "http", Host: u.Host}
		if u.Scheme == "wss" {
			backend.Scheme = "https"
		}
		var transport http.RoundTripper
		if hc := target(ctx).HTTPClient; hc != nil {
			transport = hc.Transport
		}
		proxy := &httputil.ReverseProxy{
			Rewrite: func(r *httputil.ProxyRequest) {
				r.SetURL(backend)
				r.SetXForwarded()
			},
			Transport: transport,
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		must.Succeed(err)
		srv := &http.Server{Handler: proxy, ReadHeaderTimeout: conformance.Wait()}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		c, err := should.PairOn(ctx, "device through a proxy", must.Token(ctx), func(ctx context.Context) (*conformance.Conn, error) {
			c, err := conformance.DialAt(ctx, "device through a proxy", "ws://"+ln.Addr().String()+lmp.PathWebSocket, nil)
			if err != nil {
				return nil, fmt.Errorf("WebSocket upgrade through a reverse proxy to %s: %w", target(ctx).WSURL, err)
			}
			return c, nil
		})
		must.Succeed(err, "pair through a reverse proxy")
		must.Send(ctx, c, lmp.Ping{})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
	})
})
