package suites

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"

	"github.com/coder/websocket"
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section("§1 Transport", "transport", func() {
	conformance.It("T-2", rules.MUST, `GET /health answers {"ok":true,"v":1} without authentication`, func(ctx ginkgo.SpecContext) {
		u, err := target().HealthURL()
		must.Succeed(err)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		must.Succeed(err)
		resp, err := target().HTTPClient.Do(req)
		must.Succeed(err, "GET %s", u)
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		must.Succeed(err)
		must.That(resp.StatusCode == http.StatusOK, "GET %s: want HTTP 200, got %d %q", u, resp.StatusCode, body)
		var got map[string]any
		must.Succeed(json.Unmarshal(body, &got), "GET %s: body %q is not JSON", u, body)
		must.That(reflect.DeepEqual(got, map[string]any{"ok": true, "v": float64(1)}), `GET %s: want {"ok":true,"v":1}, got %s`, u, body)
	})

	conformance.It("T-1,P-3,P-7", rules.MUST, "the WebSocket at /ws accepts a new device that pairs with a token", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.That(c.Device.ID != "", "hello.ok after pairing has an empty device_id")
	})

	conformance.It("T-3", rules.MUST, "server frames are text frames of UTF-8 JSON", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		f := must.Expect(ctx, c, match.Type(lmp.TypePong))
		must.That(!f.Binary, "pong arrived as a binary frame")
		// Every other frame is checked for the same when the spec ends.
	})

	conformance.It("T-3", rules.SHOULD, "a binary frame gets close 1003 or a non-fatal error, and the server keeps serving (note 12)", func(ctx ginkgo.SpecContext) {
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

	conformance.It("T-3", rules.INFO, "a binary frame gets a fatal binary_frame error and close 1003 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Succeed(c.SendRaw(ctx, websocket.MessageBinary, []byte{0x01, 0x02, 0xff}))
		expectCodes(should.AwaitRefusal(ctx, c, nil), lmp.CodeBinaryFrame, lmp.CloseUnsupportedData)
	})

	conformance.It("T-6", rules.MUST, "a client ping is answered with pong", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		for range 3 {
			must.Send(ctx, c, lmp.Ping{})
			must.Expect(ctx, c, match.Type(lmp.TypePong))
		}
	})

	conformance.It("T-7,T-8", rules.MUST, "timestamps are float epoch seconds and hello.ok carries server_time", func(ctx ginkgo.SpecContext) {
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

var _ = conformance.Section("§1 Transport", "transport", func() {
	conformance.It("T-1", rules.MUST, "the WebSocket upgrade at /ws is answered at /ws itself, not through a redirect", func(ctx ginkgo.SpecContext) {
		// Probes, proxies and many WebSocket clients do not follow a
		// redirect of the upgrade request (to /ws/, say): T-1 puts the
		// WebSocket at /ws.
		hc := http.Client{}
		if t := target().HTTPClient; t != nil {
			hc = *t
		}
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		opts := *target().DialOptions()
		opts.HTTPClient = &hc
		raw, err := client.Dial(ctx, target().WSURL, &opts)
		must.Succeed(err, "dial %s without following redirects", target().WSURL)
		c := &conformance.Conn{Conn: raw, Name: "device, no redirects"}
		defer c.CloseNow()
		_, err = c.Hello(ctx, lmp.Hello{Token: must.Token(ctx)})
		must.Succeed(err, "pair at %s without following redirects", target().WSURL)
	})
})
