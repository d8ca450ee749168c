package suites

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var (
	hbAlternating heartbeatRun

	// hbAlternatingProbe misses every other ping: five pings, three of
	// them unanswered, never two in a row.
	hbAlternatingProbe = conformance.NewProbe("heartbeat: every other ping missed", func(ctx context.Context, p *conformance.Probe) error {
		return runHeartbeat(ctx, p, &hbAlternating, 5, func(n int) time.Duration {
			if n%2 == 1 {
				return -1
			}
			return 0
		})
	})
)

var _ = conformance.Section("§1 Heartbeat", "heartbeat", func() {
	conformance.It("T-5", rules.MUST, "unanswered pings count only when consecutive: three misses, never two in a row, do not disconnect", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, hbAlternatingProbe)
		must.That(hbAlternating.closed == nil, "disconnected after %d pings, every other one answered: %v", len(hbAlternating.pings), hbAlternating.closed)
	}, conformance.Timer, ginkgo.SpecTimeout(4*time.Minute))
})
