package suites

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionRestart, func(specs *conformance.Specs) {
	for _, how := range []conformance.Stop{conformance.Graceful, conformance.Kill} {
		what := map[conformance.Stop]string{conformance.Graceful: "a clean restart", conformance.Kill: "a kill -9"}[how]

		specs.It("E-2", rules.MUST, "seq never goes back or repeats for a device across "+what, func(ctx ginkgo.SpecContext) {
			conformance.RequireStop(ctx, how)
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

		specs.It("P-8", rules.MUST, "paired devices still authenticate after "+what, func(ctx ginkgo.SpecContext) {
			conformance.RequireStop(ctx, how)
			online := must.Pair(ctx, "device online during the "+string(how))
			offline := must.Pair(ctx, "device offline during the "+string(how))
			must.Succeed(offline.CloseNow())
			restarted(ctx, how)
			for _, c := range []*conformance.Conn{online, offline} {
				again := must.Connect(ctx, c.Name+", again", c.Device, nil)
				must.Equal("hello.ok device_id", again.HelloOK.DeviceID, c.Device.ID)
			}
		}, conformance.Restarts, ginkgo.SpecTimeout(restartTimeout))

		specs.It("E-5,E-6,E-7", rules.MUST, "after "+what+", a gap is re-sent exactly or answered with truncated: true (note 4)", func(ctx ginkgo.SpecContext) {
			conformance.RequireStop(ctx, how)
			// The device under test is paired after another device has had
			// events, as a second phone is: a server that numbers each
			// device's events from its pairing must still know where that
			// was after the restart, or the gap comes back renumbered.
			earlier, before := pairAndNotify(ctx, 2)
			takeBatch(ctx, earlier, before)
			must.Succeed(earlier.CloseNow())
			// The events are sent to the device before the stop, so E-5
			// binds the server to keep them; the device then asks for all
			// but the first again.
			a, batch := pairAndNotify(ctx, 4)
			seen := takeBatch(ctx, a, batch)
			must.Succeed(a.CloseNow())
			last := seen[0].Seq
			restarted(ctx, how)
			b := must.Connect(ctx, "device after "+string(how), a.Device, &last)
			if b.HelloOK.Truncated {
				ginkgo.AddReportEntry("gap", fmt.Sprintf("after %s, truncated: true: the server could not serve the gap after seq %d (E-6)", what, last))
				return
			}
			// Not truncated: the gap is re-sent whole, in order, each event
			// with the seq and content it had (E-5, E-7).
			replayed := takeN(ctx, b, batch.Match(), batch.N-1)
			for i, f := range replayed {
				orig := seen[i+1]
				must.Equal("seq of the re-sent "+orig.EventID+" (E-7)", f.Seq, orig.Seq)
				must.Equal("content of the re-sent "+orig.EventID+" (E-7)", string(f.Payload), string(orig.Payload))
			}
			ginkgo.AddReportEntry("gap", fmt.Sprintf("after %s, truncated: false: the %d events after seq %d were re-sent, seq %d..%d, each compared with the original for seq and content (E-7)",
				what, len(replayed), last, replayed[0].Seq, replayed[len(replayed)-1].Seq))
		}, conformance.NeedsEvents, conformance.Restarts, ginkgo.SpecTimeout(restartTimeout))
	}
})
