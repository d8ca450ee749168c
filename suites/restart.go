package suites

import (
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// highestSeq is the highest seq of the durable frames c has received:
// taken (the frames given) or still in its inbox.
func highestSeq(c *conformance.Conn, taken []client.Frame) int64 {
	high := c.HelloSeq
	for _, f := range append(append([]client.Frame(nil), taken...), c.Pending()...) {
		if lmp.IsDurable(f.Type) && f.Seq > high {
			high = f.Seq
		}
	}
	return high
}

// restartTimeout bounds a restart spec: the probes are awaited first (up
// to the longest protocol timer), then the server restarts.
const restartTimeout = 4 * time.Minute

// restarted stops the server as how says and waits until it is back.
func restarted(ctx ginkgo.SpecContext, how conformance.Stop) {
	must.Succeed(conformance.Restart(ctx, how), "%s the server", how)
}

var _ = conformance.Section("§2 Restarts and crashes (note 4)", "restart", func() {
	for _, how := range []conformance.Stop{conformance.Graceful, conformance.Kill} {
		what := map[conformance.Stop]string{conformance.Graceful: "a clean restart", conformance.Kill: "a kill -9"}[how]

		conformance.It("E-2", rules.MUST, "seq never goes back or repeats for a device across "+what, func(ctx ginkgo.SpecContext) {
			conformance.RequireStop(how)
			a := must.Pair(ctx, "device")
			seen := takeBatch(ctx, a, notifications(ctx, a, 3))
			high := highestSeq(a, seen)
			restarted(ctx, how)
			b := must.Connect(ctx, "device after "+string(how), a.Device, &high)
			after := takeBatch(ctx, b, notifications(ctx, b, 2))
			prev := high
			for _, f := range after {
				must.That(f.Seq > prev, "seq %d after %s; the device had processed seq %d: the app would drop this event (note 4)", f.Seq, what, prev)
				prev = f.Seq
			}
		}, conformance.NeedsEvents, conformance.Restarts, ginkgo.SpecTimeout(restartTimeout))

		conformance.It("P-8", rules.MUST, "paired devices still authenticate after "+what, func(ctx ginkgo.SpecContext) {
			conformance.RequireStop(how)
			online := must.Pair(ctx, "device online during the "+string(how))
			offline := must.Pair(ctx, "device offline during the "+string(how))
			must.Succeed(offline.CloseNow())
			restarted(ctx, how)
			for _, c := range []*conformance.Conn{online, offline} {
				again := must.Connect(ctx, c.Name+", again", c.Device, nil)
				must.Equal("hello.ok device_id", again.HelloOK.DeviceID, c.Device.ID)
			}
		}, conformance.Restarts, ginkgo.SpecTimeout(restartTimeout))

		conformance.It("E-5,E-6,E-7", rules.MUST, "after "+what+", a gap is re-sent exactly, or answered with truncated: true when it cannot be (note 4)", func(ctx ginkgo.SpecContext) {
			conformance.RequireStop(how)
			a, warm := pairAndNotify(ctx, 1)
			sender := must.Pair(ctx, "sender")
			base := highestSeq(a, takeBatch(ctx, a, warm))
			must.Succeed(a.CloseNow())
			gap := notifications(ctx, sender, 3)
			sent := takeBatch(ctx, sender, gap) // produced before the stop
			restarted(ctx, how)
			b := must.Connect(ctx, "device after "+string(how), a.Device, &base)
			if b.HelloOK.Truncated {
				ginkgo.AddReportEntry("gap", fmt.Sprintf("the server could not serve the gap after %s and said truncated: true (E-6)", what))
				return
			}
			// Not truncated: the gap is re-sent whole, in order, with the
			// content the events had (E-5, E-7).
			replayed := takeBatch(ctx, b, gap)
			prev := base
			for i, f := range replayed {
				must.That(f.Seq > prev, "re-sent event %d of the gap: seq %d after %d", i+1, f.Seq, prev)
				prev = f.Seq
				must.Equal(fmt.Sprintf("content of re-sent event %d of the gap (E-7)", i+1), string(f.Payload), string(sent[i].Payload))
			}
		}, conformance.NeedsEvents, conformance.Restarts, ginkgo.SpecTimeout(restartTimeout))
	}
})
