package suites

import (
	"context"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
)

// Waiting for a timer probe's outcome (conformance.Probe).

// errSkip marks a probe outcome that means "cannot be checked here".
type errSkip string

func (e errSkip) Error() string { return string(e) }

// awaitProbe waits for p and fails or skips the spec by its outcome.
func awaitProbe(ctx context.Context, p *conformance.Probe) {
	ginkgo.GinkgoHelper()
	err := p.Await(ctx)
	if s, ok := err.(errSkip); ok {
		ginkgo.Skip(string(s))
	}
	must.Succeed(err, "probe %s", p.Name)
	for _, n := range p.Notes() {
		ginkgo.AddReportEntry("probe "+p.Name, n)
	}
}
