// Package suites holds the black-box conformance suites of LMP v1: one
// Ginkgo container per spec section, one file per section (transport.go,
// envelope.go, pairing.go …). Every spec is declared through
// conformance.It with the rule IDs it checks and its level, so that a run
// can be filtered by rule and every report names the rules.
//
// The suites speak to a server only through the wire protocol, the
// loopback pairing endpoint and, when configured, the mock Hermes driver
// API; they import no server code. Package check runs them (lmp-check);
// `go test ./suites/...` runs them against an in-process reference server.
package suites

import (
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// All probes start together when the suite starts, so that timer-bound
// specs overlap in time, and the specs that produce Hermes-side events wait
// for them (as the specs that restart the server do): every event reaches
// every connected device, the probes' too, and the run's readers can take
// more than a timer check's slack to work through a stream of hundreds
// (one process holds them all, race-instrumented and beside other work in
// CI), so the probes would read, and answer, their pings late and the timer
// checks would judge the harness instead of the server. The wait is the
// BeforeEach's own, outside the spec's timeout.
var (
	_ = ginkgo.BeforeSuite(conformance.StartProbes)
	_ = ginkgo.AfterSuite(conformance.StopProbes)
	_ = ginkgo.BeforeEach(func(ctx ginkgo.SpecContext) {
		labels := ginkgo.CurrentSpecReport().Labels()
		if slices.Contains(labels, conformance.LabelEvents) || slices.Contains(labels, conformance.LabelDriver) {
			conformance.AwaitProbes(ctx)
		}
	}, ginkgo.NodeTimeout(2*time.Minute))
)
