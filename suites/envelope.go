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
		_, ok := env[k]
		must.That(ok, "%s frame lacks envelope field %q (E-1): %s", f.Type, k, f.Raw)
	}
	must.Equal(f.Type+" frame: v (an integer)", env["v"], float64(lmp.Version))
	must.Equal(f.Type+" frame: event_id (E-3: e_<seq>)", f.EventID, lmp.EventID(f.Seq))
	_, isObject := env["payload"].(map[string]any)
	must.That(isObject, "%s frame: payload is not an object (E-1)", f.Type)
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
