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

// The whole stream after a reconnect, frame by frame: a spec that waits
// for expected frames by content would skip over a re-sent duplicate.
var _ = conformance.Section("§2 Reconnection and replay", "replay", func() {
	conformance.It("E-2,E-7", rules.MUST, "the replayed gap and the live events that follow it carry each seq once, in strictly increasing order", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		chat := should.NewID("task_cf")
		var titles []string
		for range 4 {
			titles = append(titles, notify(ctx, chat))
		}
		first := takeNotes(ctx, a, titles)
		must.Succeed(a.CloseNow())
		last := first[0].Seq
		b := must.Connect(ctx, "device reconnected", a.Device, &last)
		live := notify(ctx, chat)
		prev := last
		for {
			f := must.Expect(ctx, b, match.Anything())
			if !lmp.IsDurable(f.Type) {
				continue
			}
			Expect(f.Seq).To(BeNumerically(">", prev), "%s (seq %d) after seq %d: a seq was sent twice or out of order", f.Type, f.Seq, prev)
			prev = f.Seq
			if f.Type == lmp.TypeNotification && rawPayload(f)["title"] == live {
				break
			}
		}
	}, conformance.NeedsDriver)
})
