package suites

import (
	"context"

	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
)

// Helpers that produce Hermes-side events through the spec's event source
// (the driver or the triggers, conformance.Events) and take them from a
// connection.

// burstBesideProbes is the largest burst of events a spec produces while
// the timer probes run. Every event reaches every connected device, the
// probes' too, and the run's readers can take more than a timer check's
// slack to work through a burst of hundreds (one process holds them all,
// race-instrumented and beside other work in CI): the probes would then
// read, and answer, their pings late, and the timer checks would judge the
// harness instead of the server. A larger burst waits for the probes.
const burstBesideProbes = 64

// burstTimeout bounds a spec that produces more than burstBesideProbes
// events. Like a restart spec it awaits the probes first, up to the longest
// protocol timer (about two minutes of heartbeat probes at the spec's own
// profile), and only then is its burst produced and read: its own work must
// not share a shorter limit with that wait, or a spec that happens to start
// early fails for the probes' sake.
const burstTimeout = restartTimeout

// notifications has the event source produce n notifications in a new
// task, through via when it sends triggers.
func notifications(ctx context.Context, via *conformance.Conn, n int) conformance.Batch {
	ginkgo.GinkgoHelper()
	if n > burstBesideProbes {
		conformance.AwaitProbes(ctx)
	}
	b, err := conformance.Events(ctx).Notifications(ctx, via, n)
	must.Succeed(err, "produce %d notifications", n)
	return b
}

// takeN takes the first n frames m matches from c, in the order they
// arrived.
func takeN(ctx context.Context, c *conformance.Conn, m match.M, n int) []client.Frame {
	ginkgo.GinkgoHelper()
	out := make([]client.Frame, 0, n)
	for range n {
		out = append(out, must.Expect(ctx, c, m))
	}
	return out
}

// takeBatch takes b's notifications from c, in the order they arrived.
func takeBatch(ctx context.Context, c *conformance.Conn, b conformance.Batch) []client.Frame {
	ginkgo.GinkgoHelper()
	return takeN(ctx, c, b.Match(), b.N)
}

// newApproval has the event source start a run that waits for an exec
// approval, and waits until c sees its approval.required. A timeout other
// than zero needs the driver.
func newApproval(ctx context.Context, c *conformance.Conn, timeout time.Duration) conformance.Approval {
	ginkgo.GinkgoHelper()
	a, err := conformance.Events(ctx).Approval(ctx, c, timeout)
	must.Succeed(err, "start a run that waits for an approval")
	return a
}

// startLongRun has the event source start a run that streams until it is
// interrupted, in a new task, and waits until c sees its run.started.
func startLongRun(ctx context.Context, c *conformance.Conn) conformance.Run {
	ginkgo.GinkgoHelper()
	r, err := conformance.Events(ctx).LongRun(ctx, c)
	must.Succeed(err, "start a long run")
	return r
}

// sendTrigger sends p through the event source's session.send (with the
// event source's text for kind when p has no text) and returns the answer
// and the task it names.
func sendTrigger(ctx context.Context, c *conformance.Conn, p lmp.SessionSend) (client.Frame, string) {
	ginkgo.GinkgoHelper()
	f, task, err := conformance.Events(ctx).Send(ctx, c, p)
	must.Succeed(err)
	return f, task
}

// pendingIn returns the frames of c's inbox in task that m matches.
func pendingIn(c *conformance.Conn, task string, m match.M) []client.Frame {
	var out []client.Frame
	for _, f := range c.Pending() {
		if match.Task(task).And(m).Match(f) {
			out = append(out, f)
		}
	}
	return out
}

// hermesHalf runs the part of a spec that observes the Hermes side
// through the driver's recorded calls; with triggers it is left out, and
// the spec says so in its report.
func hermesHalf(ctx context.Context, check func()) {
	if conformance.Events(ctx).Source() == conformance.SourceDriver {
		check()
		return
	}
	ginkgo.AddReportEntry("Hermes side", "not observed: without --driver-url only the LMP half of this spec runs")
}
