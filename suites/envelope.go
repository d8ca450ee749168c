package suites

import (
	"errors"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionEnvelope, func(specs *conformance.Specs) {
	specs.It("E-1,E-3,E-4,F-1", rules.MUST, "connection frames carry the full envelope with event_id e_<seq> and validate against the schemas", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		pong := must.Expect(ctx, c, match.Type(lmp.TypePong))
		checkEnvelope(pong)
		must.Send(ctx, c, lmp.TaskList{RequestID: "env-1"})
		res := must.Expect(ctx, c, match.Answer("env-1", lmp.TypeTaskListResult))
		checkEnvelope(res)
		// hello.ok was validated when it was taken; its envelope once more:
		again := must.Connect(ctx, "device again", c.Device, nil)
		must.Send(ctx, again, lmp.Ping{})
		checkEnvelope(must.Expect(ctx, again, match.Type(lmp.TypePong)))
	})

	// A refusal is written apart from every other frame, just before the
	// close; a server may also close without one, which passes.
	specs.It("E-1,E-3", rules.MUST, "the error frame of a refused hello carries the full envelope too", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device from the future")
		c.LearnSecret(conformance.SecretToken, tok)
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypeHello, "payload": map[string]any{
			"protocol_version": 99, "token": tok,
			"device_info": map[string]any{"model": "m", "os": "o", "app_version": "1"},
		}})
		f, err := should.Expect(ctx, c, match.Type(lmp.TypeError))
		var ce *client.CloseError
		if errors.As(err, &ce) {
			ginkgo.AddReportEntry("refusal", "the hello was refused with a close and no error frame: no envelope to check")
			return
		}
		must.Succeed(err, "the answer to a hello with protocol_version 99")
		checkEnvelope(f)
	})

	// Revocation ends a connection that has had events: its error frame,
	// if it sends one, is numbered among them. A close alone passes.
	specs.It("E-1,E-2,E-3", rules.MUST, "the error ending a revoked device's connection has the full envelope, no seq below earlier events", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		high := highestSeq(c, takeBatch(ctx, c, notifications(ctx, c, 2)))
		revoke(ctx, c.Device.ID)
		f, err := should.Expect(ctx, c, match.Type(lmp.TypeError))
		if err != nil && !errors.Is(err, conformance.ErrInvalidFrame) {
			ginkgo.AddReportEntry("revocation", "no error frame before the connection's end: no envelope to check: "+err.Error())
			return
		}
		must.Succeed(err, "the error frame ending the revoked device's connection")
		checkEnvelope(f)
		must.That(f.Seq >= high, "the error frame ending the connection has seq %d, below seq %d of a durable event sent before it (E-2)", f.Seq, high)
	}, conformance.NeedsEvents)

	specs.It("E-2", rules.SHOULD, "connection-scoped frames carry the device's current seq without advancing it (note 2)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Equal("seq of a new device's hello.ok, before any durable event", c.HelloSeq, 0)
		cur := c.HelloSeq
		for range 3 {
			must.Send(ctx, c, lmp.Ping{})
			// Durable events of other specs may arrive meanwhile: a pong
			// carries the seq of the last durable frame before it.
			for {
				f := must.Expect(ctx, c, match.Anything())
				if lmp.IsDurable(f.Type) {
					must.That(f.Seq > cur, "durable %s has seq %d, not above %d", f.Type, f.Seq, cur)
					cur = f.Seq
					continue
				}
				if f.Type == lmp.TypePong {
					must.Equal("pong seq: the last durable event's", f.Seq, cur)
					break
				}
			}
		}
	})
})

var _ = conformance.Section(sectionEnvelope, func(specs *conformance.Specs) {
	specs.It("E-4,F-1", rules.MUST, "every frame of a turn that calls tools validates against the schemas, its tool arguments included", func(ctx ginkgo.SpecContext) {
		// Tool arguments are the one free-form value Hermes hands the
		// adapter for a payload (run.tool_started's preview): every frame
		// of the run, taken up to its terminal frame, is validated.
		c := must.Pair(ctx, "device")
		_, task := sendTrigger(ctx, c, lmp.SessionSend{Text: conformance.Events(ctx).Text(conformance.TriggerToolRun, 0)})
		for _, f := range runFramesOf(ctx, c, task) {
			must.Succeed(conformance.ValidateFrame(f), "frame of the tool turn: %s", c.Describe(f))
		}
	}, conformance.NeedsEvents)
})
