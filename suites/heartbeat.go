package suites

import (
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionHeartbeat, func(specs *conformance.Specs) {
	timeout := ginkgo.SpecTimeout(heartbeatSpecTimeout)

	specs.It("T-4", rules.MUST, "the server sends ping at the ping interval (25 s by the spec)", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbAliveProbe)
		iv := profile(ctx).PingInterval
		must.That(len(hbAlive.pings) >= 3, "want 3 pings, got %d (at %v after hello.ok)", len(hbAlive.pings), hbAlive.pings)
		must.That(hbAlive.pings[0] <= iv+slack(iv), "the first ping came %v after hello.ok, the ping interval is %v", hbAlive.pings[0].Round(time.Millisecond), iv)
		for i := 1; i < len(hbAlive.pings); i++ {
			gap := hbAlive.pings[i] - hbAlive.pings[i-1]
			must.That((gap-iv).Abs() <= slack(iv), "ping %d came %v after ping %d, the ping interval is %v", i+1, gap.Round(time.Millisecond), i, iv)
		}
	}, conformance.Timer, timeout)

	specs.It("T-5", rules.MUST, "a client that answers every ping stays connected", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbAliveProbe)
		must.That(hbAlive.closed == nil, "a client that answered every ping was disconnected: %v", hbAlive.closed)
	}, conformance.Timer, timeout)

	specs.It("T-5", rules.MUST, "after 3 consecutive unanswered pings the server disconnects, not before", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbSilentProbe)
		p := profile(ctx)
		must.That(hbSilent.closed != nil, "still connected after %d unanswered pings", len(hbSilent.pings))
		must.That(len(hbSilent.pings) >= p.MissedPongs, "disconnected after %d unanswered pings, before the %d-th", len(hbSilent.pings), p.MissedPongs)
		limit := time.Duration(p.MissedPongs)*p.PingInterval + p.PongTimeout
		must.That(hbSilent.endAt <= limit+slack(limit), "disconnected %v after hello.ok, want within %v", hbSilent.endAt.Round(time.Millisecond), limit)
	}, conformance.Timer, timeout)

	specs.It("T-5", rules.INFO, "the heartbeat timeout sends a fatal heartbeat_timeout error and closes with 1008 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbSilentProbe)
		must.That(hbSilent.closed != nil, "still connected after %d unanswered pings", len(hbSilent.pings))
		expectCodes(should.Refusal{Error: hbSilent.err, Close: hbSilent.closed}, lmp.CodeHeartbeatTimeout, lmp.ClosePolicyViolation)
	}, conformance.Timer, timeout)

	specs.It("T-5", rules.MUST, "two missed pings followed by an answered one do not disconnect", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbTwoMissesProbe)
		must.That(hbTwoMisses.closed == nil, "disconnected after %d pings although the third was answered: %v", len(hbTwoMisses.pings), hbTwoMisses.closed)
	}, conformance.Timer, timeout)

	specs.It("T-5", rules.SHOULD, "a pong later than the pong timeout counts as a miss (note 8)", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbLateProbe)
		must.That(hbLate.closed != nil, "late pongs kept the connection open through %d pings", len(hbLate.pings))
	}, conformance.Timer, timeout)

})
