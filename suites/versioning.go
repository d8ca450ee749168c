package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section("§6 Versioning", "versioning", func() {
	conformance.It("V-2", rules.MUST, "hello.ok states protocol_version 1", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		Expect(c.HelloOK.ProtocolVersion).To(Equal(lmp.Version))
		Expect(rawEnvelope(must.Expect(ctx, pinged(ctx, c), match.Type(lmp.TypePong)))["v"]).To(Equal(float64(lmp.Version)))
	})

	conformance.It("V-2", rules.MUST, "a hello with an unsupported protocol_version is refused with an error and the connection ends", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device from the future")
		_, err := c.Hello(ctx, lmp.Hello{ProtocolVersion: 99, Token: tok})
		_, isServerErr := should.ServerError(err)
		Expect(isServerErr).To(BeTrue(), "hello with protocol_version 99: want an error frame, got %v", err)
		must.Closed(ctx, conformance.Wait(), c)
	})

	conformance.It("V-2", rules.SHOULD, "an unsupported protocol_version gets a fatal unsupported_version naming the supported versions, and close 1002 (note 11)", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device from the future")
		_, err := c.Hello(ctx, lmp.Hello{ProtocolVersion: 99, Token: tok})
		se, _ := should.ServerError(err)
		Expect(se.Code).To(Equal(lmp.CodeUnsupportedVersion))
		Expect(se.Fatal).To(BeTrue())
		Expect(se.SupportedVersions).To(gomegaContainElement(lmp.Version))
		Expect(must.Closed(ctx, conformance.Wait(), c).Code).To(Equal(lmp.CloseProtocolError))
	})

	conformance.It("V-1", rules.MUST, "unknown client frame types are ignored: the connection keeps working", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": "x.future_feature", "payload": map[string]any{"a": 1}})
		must.Send(ctx, c, lmp.Ping{})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
		for _, f := range c.Pending() {
			if f.Type == lmp.TypeError {
				e := must.Decode[lmp.Error](f)
				Expect(e.Fatal).To(BeFalse(), "an unknown type got a fatal error")
			}
		}
		Expect(c.Closed()).To(gomegaBeNil())
	})

	conformance.It("V-1", rules.MUST, "unknown fields in client frames are ignored", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device")
		must.SendJSON(ctx, c, map[string]any{
			"v": 1, "type": lmp.TypeHello, "x_future": true,
			"payload": map[string]any{
				"protocol_version": 1, "token": tok, "x_future": map[string]any{"nested": 1},
				"device_info": map[string]any{"model": "m", "os": "o", "app_version": "1", "x_future": "yes"},
			},
		})
		c.LearnSecret(conformance.SecretToken, tok)
		f := must.Expect(ctx, c, match.Type(lmp.TypeHelloOK, lmp.TypeError))
		Expect(f.Type).To(Equal(lmp.TypeHelloOK), "hello with unknown fields: %s", f.Payload)
		ok := must.Decode[lmp.HelloOK](f)
		if ok.Credential != nil {
			c.LearnSecret(conformance.SecretCredential, *ok.Credential)
		}
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypePing, "payload": map[string]any{"x_future": 1}, "x_other": "z"})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
	})

	conformance.It("F-2", rules.SHOULD, "a client frame needs only v, type and payload; other envelope fields are ignored (note 1)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypePing, "payload": map[string]any{},
			"seq": 999999, "ts": 1.5, "event_id": "e_999999", "task_id": nil, "run_id": nil})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
	})
})

// pinged sends a ping on c and returns c.
func pinged(ctx ginkgo.SpecContext, c *conformance.Conn) *conformance.Conn {
	must.Send(ctx, c, lmp.Ping{})
	return c
}
