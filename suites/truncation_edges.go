package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionTruncation, func(specs *conformance.Specs) {
	// The window's edges, each ±1: a device that saw every event, a gap of
	// window-1 and of exactly the window (replayed in full, not truncated),
	// and a gap one event beyond it (truncated). The gaps are counted in
	// the durable events the device got.
	specs.It("E-5,E-6,E-7", rules.MUST, "gaps up to the replay window are replayed in full without truncated; one event more is truncated", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		w := profile(ctx).ReplayWindow
		log := readThrough(ctx, a, notifications(ctx, a, w+2))
		must.Succeed(a.CloseNow())
		for _, gap := range []int{0, w - 1, w} {
			b := reconnectMissingInFull(ctx, a, log, gap)
			must.That(!b.HelloOK.Truncated, "hello.ok after %s (last_seq %d, window %d): truncated true, want false", describeGap(gap), log.lastSeqBefore(gap), w)
			expectReplay(ctx, b, log, gap, w)
			log.addNewer(b.Pending()) // events produced after the first connection's pong
			must.Succeed(b.CloseNow())
		}
		missed := log.durable[len(log.durable)-w-1]
		b := reconnectMissing(ctx, a, log, w+1)
		must.That(b.HelloOK.Truncated, "hello.ok after a gap of %d events (last_seq %d, window %d): truncated false, want true (the device missed %s seq %d)", w+1, log.lastSeqBefore(w+1), w, missed.Type, missed.Seq)
	}, conformance.NeedsEvents, ginkgo.SpecTimeout(burstTimeout))
})
