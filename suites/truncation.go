package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionTruncation, func(specs *conformance.Specs) {
	specs.It("E-5,E-6", rules.MUST, "a gap older than the replay window sets truncated: true, and the connection then serves task.list", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		start := a.HelloSeq
		n := profile(ctx).ReplayWindow + 40
		batch := notifications(ctx, a, n)
		takeBatch(ctx, a, batch)
		must.Succeed(a.CloseNow())
		b := must.Connect(ctx, "device reconnected", a.Device, &start)
		must.That(b.HelloOK.Truncated, "a gap of %d events with a window of %d: hello.ok does not say truncated", n, profile(ctx).ReplayWindow)
		// The app then re-fetches task.list (E-6), on this connection, and
		// the connection goes on serving it: a second request is answered
		// too, so a server that closes just after its first answer fails.
		must.Request(ctx, b, lmp.TaskList{})
		must.Request(ctx, b, lmp.TaskList{})
	}, conformance.NeedsEvents, ginkgo.SpecTimeout(burstTimeout))
})
