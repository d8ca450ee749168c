package suites

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionHeartbeat, func(specs *conformance.Specs) {
	specs.It("T-5", rules.MUST, "a client that answers the first ping, then falls silent, is disconnected after 3 more missed pings", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbAnsweredOnceProbe)
		p := profile(ctx)
		must.That(hbAnsweredOnce.closed != nil, "still connected after %d pings, only the first answered", len(hbAnsweredOnce.pings))
		must.That(len(hbAnsweredOnce.pings) >= 1+p.MissedPongs, "disconnected after %d pings, the first answered: before %d unanswered ones", len(hbAnsweredOnce.pings), p.MissedPongs)
		limit := time.Duration(1+p.MissedPongs)*p.PingInterval + p.PongTimeout
		must.That(hbAnsweredOnce.endAt <= limit+slack(limit), "disconnected %v after hello.ok, want within %v", hbAnsweredOnce.endAt.Round(time.Millisecond), limit)
	}, conformance.Timer, ginkgo.SpecTimeout(heartbeatSpecTimeout))

	specs.It("T-5", rules.MUST, "unanswered pings count only when consecutive: three misses, never two in a row, do not disconnect", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbAlternatingProbe)
		must.That(hbAlternating.closed == nil, "disconnected after %d pings, every other one answered: %v", len(hbAlternating.pings), hbAlternating.closed)
	}, conformance.Timer, ginkgo.SpecTimeout(heartbeatSpecTimeout))
})

var _ = conformance.Section(sectionHeartbeat, func(specs *conformance.Specs) {
	specs.It("T-4", rules.MUST, "a paired device's later connection is pinged at the ping interval too", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbReturningProbe)
		iv := profile(ctx).PingInterval
		must.That(len(hbReturning.pings) == 2, "a reconnected device got %d pings (at %v after hello.ok), want 2 at the ping interval %v", len(hbReturning.pings), hbReturning.pings, iv)
		at, stamped := hbReturning.pings, hbReturning.stamped
		must.That(at[0] <= iv+slack(iv), "the first ping on a reconnected device came %v after hello.ok (stamped %v after its server_time), the ping interval is %v",
			at[0].Round(time.Millisecond), stamped[0].Round(time.Millisecond), iv)
		gap := at[1] - at[0]
		must.That((gap-iv).Abs() <= slack(iv), "pings on a reconnected device came %v apart (stamped %v apart), the ping interval is %v",
			gap.Round(time.Millisecond), (stamped[1] - stamped[0]).Round(time.Millisecond), iv)
	}, conformance.Timer, ginkgo.SpecTimeout(heartbeatSpecTimeout))
})

var _ = conformance.Section(sectionTransport, func(specs *conformance.Specs) {
	specs.It("T-8", rules.MUST, "a returning device's hello.ok carries the server's clock at that hello, not an earlier time", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbReturningProbe)
		// Both times are the server's clock: the ping was sent before the
		// device connected again, so server_time cannot be older than it.
		// A second covers a clock step between the two.
		st, pingTS := hbReturning.serverTime, hbReturning.firstPingTS
		must.That(st >= pingTS-1, "hello.ok of a returning device says server_time %.3f, %.1f s before the ts %.3f of a ping the server sent on the device's previous connection", st, pingTS-st, pingTS)
	}, conformance.Timer, ginkgo.SpecTimeout(heartbeatSpecTimeout))
})

var _ = conformance.Section(sectionHeartbeat, func(specs *conformance.Specs) {
	// T-5 counts the pings a client leaves unanswered, not the pongs a
	// server is too busy to read. Real Hermes can be slow to answer
	// resolve_gateway_approval (one process-wide lock, called off the
	// gateway's event loop: CI.md, POST /hold), and a server that waits for
	// it in the loop that reads the device's frames reads no pong
	// meanwhile. So the driver holds the device's resolve for longer than
	// the misses that disconnect, while the device answers every ping at
	// once: it must still be connected, and get its answer, when Hermes
	// answers. A server that answers the resolve before Hermes has, or
	// gives the call up early, passes: nothing then waits.
	specs.It("T-5", rules.MUST, "a device that answers every ping stays connected while its own approval.resolve waits on Hermes", func(ctx ginkgo.SpecContext) {
		p := profile(ctx)
		round := max(p.PingInterval, p.PongTimeout)
		pings := p.MissedPongs + 1
		held := time.Duration(pings)*round + slack(round) + conformance.Wait()
		d := must.Pair(ctx, "device") // answers every ping
		res := newApproval(ctx, d, 2*held)
		release := holdApprovalResolve(ctx, res, held+conformance.Wait())
		defer func() { _ = release() }()

		rid := should.NewID("held-")
		must.Send(ctx, d, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceOnce, RequestID: rid})
		call := eventuallyCalls(ctx, 1, "resolve_gateway_approval", argIs("session_key", res.SessionKey))
		must.That(call[0].Held, "the driver did not hold the device's resolve_gateway_approval: %s", describeCalls(call))
		start := time.Now()
		for n := 1; n <= pings; n++ {
			wait, cancel := context.WithTimeout(ctx, round+slack(round)+conformance.Wait())
			_, err := d.Expect(wait, match.Type(lmp.TypePing))
			cancel()
			if ce := d.Closed(); ce != nil {
				ginkgo.Fail(fmt.Sprintf("the device answered every ping at once, yet was disconnected %v after its approval.resolve reached Hermes, which had not answered yet (%d pings seen): %v",
					time.Since(start).Round(time.Millisecond), n-1, ce))
			}
			must.Succeed(err, fmt.Sprintf("server ping %d of %d while Hermes holds the device's resolve", n, pings))
		}
		if slices.ContainsFunc(d.Pending(), match.Answer(rid).Match) {
			conformance.NotObserved("T-5", "the server answered the resolve before Hermes did, so nothing waited on Hermes")
		}
		must.Succeed(release(), "driver release")
		must.Expect(ctx, d, match.Answer(rid))
	}, conformance.NeedsDriver, conformance.Timer, ginkgo.SpecTimeout(heartbeatSpecTimeout))
})
