package suites

import (
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section("§2 Truncation", "truncation", func() {
	conformance.It("E-5,E-6", rules.MUST, "a gap older than the replay window sets truncated: true in hello.ok", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		start := a.HelloSeq
		n := profile().ReplayWindow + 40
		// One event per driver call: paced, so that no consumer of the
		// shared server is flooded.
		chat := should.NewID("task_cf")
		var last string
		for range n {
			last = notify(ctx, chat)
		}
		must.ExpectWithin(ctx, 60*time.Second, a, match.Type(lmp.TypeNotification).And(match.Field("title", last)))
		must.Succeed(a.CloseNow())
		b := must.Connect(ctx, "device reconnected", a.Device, &start)
		Expect(b.HelloOK.Truncated).To(BeTrue(), "a gap of %d events with a window of %d", n, profile().ReplayWindow)
	}, conformance.NeedsDriver, ginkgo.SpecTimeout(2*time.Minute))
})
