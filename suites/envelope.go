package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// envelopeKeys are the fields every server frame carries (E-1).
var envelopeKeys = []string{"v", "seq", "ts", "type", "task_id", "run_id", "event_id", "payload"}

// checkEnvelope checks E-1 and E-3 on one frame beyond what the schema
// says, so that the failure names the rule directly.
func checkEnvelope(f client.Frame) {
	env := rawEnvelope(f)
	for _, k := range envelopeKeys {
		Expect(env).To(HaveKey(k), "%s frame lacks envelope field %q (E-1)", f.Type, k)
	}
	Expect(f.V).To(Equal(lmp.Version), "%s frame: v", f.Type)
	Expect(f.EventID).To(Equal(lmp.EventID(f.Seq)), "%s frame: event_id must be e_<seq> (E-3)", f.Type)
	_, isObject := env["payload"].(map[string]any)
	Expect(isObject).To(BeTrue(), "%s frame: payload is not an object (E-1)", f.Type)
}

var _ = conformance.Section("§2 Envelope and schema", "envelope", func() {
	conformance.It("E-1,E-3,E-4,F-1", rules.MUST, "connection frames carry the full envelope, event_id is e_<seq>, and every frame validates against the schemas", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		pong := must.Expect(ctx, c, match.Type(lmp.TypePong))
		checkEnvelope(pong)
		must.Send(ctx, c, lmp.TaskList{RequestID: "env-1"})
		res := must.Expect(ctx, c, match.Request("env-1"))
		checkEnvelope(res)
		// hello.ok was validated when it was taken; its envelope once more:
		again := must.Connect(ctx, "device again", c.Device, nil)
		must.Send(ctx, again, lmp.Ping{})
		checkEnvelope(must.Expect(ctx, again, match.Type(lmp.TypePong)))
	})

	conformance.It("E-2", rules.SHOULD, "connection-scoped frames carry the device's current seq without advancing it (note 2)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		Expect(c.HelloSeq).To(Equal(int64(0)), "hello.ok of a new device: seq before any durable event")
		cur := c.HelloSeq
		for range 3 {
			must.Send(ctx, c, lmp.Ping{})
			// Durable events of other specs may arrive meanwhile: a pong
			// carries the seq of the last durable frame before it.
			for {
				f := must.Expect(ctx, c, match.Anything())
				if lmp.IsDurable(f.Type) {
					Expect(f.Seq).To(BeNumerically(">", cur), "durable %s did not advance seq", f.Type)
					cur = f.Seq
					continue
				}
				if f.Type == lmp.TypePong {
					Expect(f.Seq).To(Equal(cur), "pong seq should equal the last durable seq")
					break
				}
			}
		}
	})
})
