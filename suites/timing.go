package suites

import (
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionTiming, func(specs *conformance.Specs) {
	// MUST: the timings are the spec's own values, not a choice on an open
	// point. A test profile deviates on purpose, so a deviation only skips
	// the spec unless --strict asks for the spec's timings.
	specs.It("T-4,T-5,S-4,P-5,E-5,I-1", rules.MUST, "the timing profile equals the spec's defaults (25 s / 10 s / 300 s / 512 / 256)", func(ctx ginkgo.SpecContext) {
		p := profile(ctx)
		ginkgo.AddReportEntry("timing profile", p.String())
		dev := p.Deviations()
		if len(dev) > 0 && !target(ctx).Strict {
			ginkgo.Skip(conformance.SkipTimingsDeviate + strings.Join(dev, "; "))
		}
		must.That(len(dev) == 0, "the server's timings deviate from the spec:\n  %s", strings.Join(dev, "\n  "))
	}, conformance.ObservesNothing) // the timer specs observe the timings themselves
})
