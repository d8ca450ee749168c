package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionEnvelope, func(specs *conformance.Specs) {
	// seq is the device's monotonically increasing number (§2), and the app
	// drops a seq below one it has processed: a frame whose seq exceeds the
	// next event's would make the app drop that event. Whether connection
	// frames take a seq of their own or repeat the current one (note 2),
	// none may run ahead. The device is paired after another device's event,
	// so that its numbers and the server's count of all events differ.
	specs.It("E-2", rules.MUST, "seq never goes back on a connection: a pong between two events has no seq above the later one's", func(ctx ginkgo.SpecContext) {
		first := must.Pair(ctx, "device A")
		must.Expect(ctx, first, notifications(ctx, first, 1).Match())
		c := must.Pair(ctx, "device B")
		w := &seqWatch{c: c, last: c.HelloSeq, prev: lmp.TypeHelloOK}
		w.until(ctx, notifications(ctx, c, 1).Match())
		must.Send(ctx, c, lmp.Ping{})
		w.until(ctx, match.Type(lmp.TypePong))
		w.until(ctx, notifications(ctx, c, 1).Match())
	}, conformance.NeedsEvents)
})
