package suites

import (
	"slices"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionVersioning, func(specs *conformance.Specs) {
	specs.It("V-2", rules.MUST, "hello.ok states protocol_version 1", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Equal("hello.ok protocol_version", c.HelloOK.ProtocolVersion, lmp.Version)
		again := must.Connect(ctx, "device again", c.Device, nil)
		must.Equal("protocol_version of the hello.ok answering a paired device", again.HelloOK.ProtocolVersion, lmp.Version)
		must.Equal("pong envelope v", rawEnvelope(must.Expect(ctx, pinged(ctx, c), match.Type(lmp.TypePong)))["v"], float64(lmp.Version))
	})

	specs.It("V-2", rules.MUST, "a hello with an unsupported protocol_version is refused: a fatal error, then a close", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device from the future")
		_, err := c.Hello(ctx, lmp.Hello{ProtocolVersion: 99, Token: tok})
		must.That(err != nil, "a hello with protocol_version 99 got hello.ok")
		must.Refused(ctx, c, err, "hello with protocol_version 99")
	})

	specs.It("V-2", rules.MUST, "a paired device's hello with an unsupported protocol_version is refused: fatal error, then close", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		must.Succeed(a.CloseNow())
		c := must.Dial(ctx, "device back, from the future")
		_, err := c.Hello(ctx, lmp.Hello{ProtocolVersion: 99, DeviceID: a.Device.ID, Credential: a.Device.Credential})
		must.That(err != nil, "a paired device's hello with protocol_version 99 got hello.ok")
		must.Refused(ctx, c, err, "a paired device's hello with protocol_version 99")
	})

	specs.It("V-2", rules.MUST, "a hello with protocol_version 0, older than any version, is refused: a fatal error, then a close", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device from the past")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypeHello, "payload": map[string]any{
			"protocol_version": 0, "token": tok,
			"device_info": map[string]any{"model": "m", "os": "o", "app_version": "1"},
		}})
		c.LearnSecret(conformance.SecretToken, tok)
		r := should.AwaitRefusal(ctx, c, nil)
		for _, f := range c.Pending() {
			if f.Type != lmp.TypeHelloOK {
				continue
			}
			if ok := must.Decode[lmp.HelloOK](f); ok.Credential != nil {
				c.LearnSecret(conformance.SecretCredential, *ok.Credential)
			}
			ginkgo.Fail("a hello with protocol_version 0 got hello.ok: LMP has no version 0, and V-2 allows no guessing")
		}
		must.That(r.Fatal(), "hello with protocol_version 0: want a fatal error followed by a close, got %s", r)
	})

	specs.It("V-2", rules.SHOULD, "an unsupported protocol_version gets a fatal unsupported_version naming supported versions (note 11)", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device from the future")
		_, err := c.Hello(ctx, lmp.Hello{ProtocolVersion: 99, Token: tok})
		must.That(err != nil, "a hello with protocol_version 99 got hello.ok")
		r := should.AwaitRefusal(ctx, c, err)
		var soft must.Soft
		soft.That(r.Fatal(), "want a fatal error followed by a close, got %s", r)
		soft.Equal("error code", r.Code(), lmp.CodeUnsupportedVersion)
		if r.Error != nil {
			soft.That(slices.Contains(r.Error.SupportedVersions, lmp.Version), "supported_versions %v does not name version %d", r.Error.SupportedVersions, lmp.Version)
		}
		soft.Done()
	})

	specs.It("V-2", rules.INFO, "an unsupported protocol_version closes with 1002 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device from the future")
		_, err := c.Hello(ctx, lmp.Hello{ProtocolVersion: 99, Token: tok})
		must.That(err != nil, "a hello with protocol_version 99 got hello.ok")
		must.Equal("close code", should.AwaitRefusal(ctx, c, err).CloseCode(), lmp.CloseProtocolError)
	})

	// An unknown client frame type is checked once, in edges.go: V-1 has
	// receivers ignore unknown types, so it gets no answer at all, neither
	// a fatal nor a non-fatal error, and the connection keeps working. A
	// non-fatal error is not ignoring it (issue 12's bug class "an unknown
	// client type answered with an error").

	specs.It("V-1", rules.MUST, "unknown fields in client frames are ignored", func(ctx ginkgo.SpecContext) {
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
		must.That(f.Type == lmp.TypeHelloOK, "a hello with unknown fields was answered with %s", c.Describe(f))
		ok := must.Decode[lmp.HelloOK](f)
		if ok.Credential != nil {
			c.LearnSecret(conformance.SecretCredential, *ok.Credential)
		}
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypePing, "payload": map[string]any{"x_future": 1}, "x_other": "z"})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
	})

	specs.It("F-2", rules.MUST, "a task.list with request_id alone is served: limit and status_filter are optional (§4)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		f := must.Request(ctx, c, lmp.TaskList{})
		must.That(f.Type == lmp.TypeTaskListResult, "a task.list without limit and status_filter was answered with %s", c.Describe(f))
	})

	specs.It("F-2", rules.SHOULD, "a client frame needs only v, type and payload; other envelope fields are ignored (note 1)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypePing, "payload": map[string]any{},
			"seq": 999999, "ts": 1.5, "event_id": "e_999999", "task_id": nil, "run_id": nil})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
	})
})
