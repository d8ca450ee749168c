package suites

import (
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionLargePayloads, func(specs *conformance.Specs) {
	// A run that is stopped ends with the text it streamed (note 17), and
	// a long answer streams a lot of it. What is checked at MUST is that the
	// run ends. The spec sets no size limit, so a server may send the text
	// whole in one frame of 1.5 MB: the kit reads and validates frames of
	// up to 16 MiB (schema.MaxBytes).
	// The text is characters JSON writes as \u003c and \u0026, 250 kB of
	// them in deltas that stay under Hermes' 16 KiB stream payload, so that
	// the terminal frame is larger in JSON than in bytes: the edge of any
	// encoder that budgets frame sizes.
	specs.It("H-1", rules.MUST, "a stopped run that streamed 250 kB of text JSON escapes still ends with a terminal frame", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		chunk := strings.Repeat("<&", 1250) // 15 kB of JSON
		for range 100 {
			t.delta(ctx, chunk, lmp.DeltaKindText)
		}
		t.sessionEnd(ctx, false, true)
		must.Expect(ctx, c, match.Task(t.task).And(match.Terminal()))
	}, conformance.NeedsDriver)
})
