package suites

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/coder/websocket"
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
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
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "GET %s: %s", u, body)
		var got map[string]any
		must.Succeed(json.Unmarshal(body, &got), "body %q is not JSON", body)
		Expect(got).To(Equal(map[string]any{"ok": true, "v": float64(1)}), "body %s", body)
	})

	conformance.It("T-1,P-3,P-7", rules.MUST, "the WebSocket at /ws accepts a new device that pairs with a token", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		Expect(c.Device.ID).NotTo(Equal(""))
	})

	conformance.It("T-3", rules.MUST, "server frames are text frames of UTF-8 JSON", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		f := must.Expect(ctx, c, match.Type(lmp.TypePong))
		Expect(f.Binary).To(BeFalse(), "pong arrived as a binary frame")
		// Every other frame is checked for the same when the spec ends.
	})

	conformance.It("T-3", rules.SHOULD, "a binary frame is refused with error binary_frame and close 1003 (note 12), and the server keeps serving", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Succeed(c.SendRaw(ctx, websocket.MessageBinary, []byte{0x01, 0x02, 0xff}))
		f := must.Expect(ctx, c, match.ErrorCode(lmp.CodeBinaryFrame))
		Expect(must.Decode[lmp.Error](f).Fatal).To(BeTrue(), "binary_frame should be fatal")
		ce := must.Closed(ctx, conformance.Wait(), c)
		Expect(ce.Code).To(Equal(lmp.CloseUnsupportedData))
		other := must.Pair(ctx, "another device")
		must.Send(ctx, other, lmp.Ping{})
		must.Expect(ctx, other, match.Type(lmp.TypePong))
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
		Expect(c.HelloOK.ServerTime).To(BeNumerically(">", 1e9), "server_time %v is not epoch seconds", c.HelloOK.ServerTime)
		Expect(c.HelloOK.ServerTime).To(BeNumerically("<", 1e11), "server_time %v looks like milliseconds, not seconds", c.HelloOK.ServerTime)
		for _, ts := range []float64{pong.TS} {
			Expect(ts).To(BeNumerically(">", 1e9), "ts %v is not epoch seconds", ts)
			Expect(ts).To(BeNumerically("<", 1e11), "ts %v looks like milliseconds", ts)
		}
		// A timestamp encoded as a string fails the envelope schema.
		Expect(rawEnvelope(pong)["ts"]).To(gomegaBeAssignableToFloat())
	})
})
