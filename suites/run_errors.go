package suites

import (
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionHermes, func(specs *conformance.Specs) {
	// run.failed comes from on_stream_end when its error is not empty
	// (§4, §7): whatever an adapter adds to it, the error Hermes reported
	// for the failed model call is in it.
	specs.It("H-1,F-4", rules.MUST, "run.failed carries the error on_stream_end reported for the model call that failed", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		cause := should.NewID("upstream overloaded ")
		t.end(ctx, "", cause)
		t.sessionEnd(ctx, false, false)
		f := must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunFailed)))
		got := must.Decode[lmp.RunFailed](f).Error
		must.That(strings.Contains(got, cause), "run.failed error %q does not carry on_stream_end's error %q", got, cause)
	}, conformance.NeedsDriver)
})
