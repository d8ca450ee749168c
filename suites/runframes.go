package suites

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// Taking a run's frames from a connection and describing them.

// replyRun has the event source play a reply run in a new task and takes
// its frames from c, up to its end; it returns its run.started.
func replyRun(ctx ginkgo.SpecContext, c *conformance.Conn) lmp.RunStarted {
	ginkgo.GinkgoHelper()
	r, err := conformance.Events(ctx).Reply(ctx, c)
	must.Succeed(err, "start a reply run")
	frames := runFramesOf(ctx, c, r.Task)
	must.That(frames[0].Type == lmp.TypeRunStarted, "the reply run in task %s began with %s, not run.started", r.Task, c.Describe(frames[0]))
	return must.Decode[lmp.RunStarted](frames[0])
}

// streamedAfterBarrier is how many deltas a run that streams on must send
// after a spec's barrier frame: more than a stream that was interrupted
// just before the barrier still had on its way.
const streamedAfterBarrier = 5

// streamsOn takes the frames of run and the first frame barrier matches
// from c, in the order they arrived, and fails the spec when run ends
// (what says when): the run must still be streaming after the barrier,
// streamedAfterBarrier deltas of it.
func streamsOn(ctx ginkgo.SpecContext, c *conformance.Conn, run string, barrier match.M, what string) {
	ginkgo.GinkgoHelper()
	seen, after := false, 0
	for after < streamedAfterBarrier {
		f := must.Expect(ctx, c, match.Any(match.Run(run), barrier))
		switch {
		case !match.Run(run).Match(f):
			seen = true
		case match.Terminal().Match(f):
			must.That(false, "run %s, which streams until it is cancelled, ended %s: %s", run, what, c.Describe(f))
		case seen && f.Type == lmp.TypeRunDelta:
			after++
		}
	}
}

// describeAll renders frames for a failure message, in order.
func describeAll(c *conformance.Conn, frames []client.Frame) string {
	if len(frames) == 0 {
		return "nothing"
	}
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = c.Describe(f)
	}
	return strings.Join(out, ", then ")
}

// payloadNamesEnvelope fails the spec when f's payload has a run_id or
// task_id other than its envelope's (a null one included).
func payloadNamesEnvelope(c *conformance.Conn, f client.Frame) {
	ginkgo.GinkgoHelper()
	p := rawPayload(f)
	for _, k := range []struct {
		key      string
		envelope *string
	}{{"run_id", f.RunID}, {"task_id", f.TaskID}} {
		v, ok := p[k.key]
		if !ok {
			continue
		}
		got, _ := v.(string)
		must.That(got == lmp.Deref(k.envelope) && (v == nil) == (k.envelope == nil),
			"%s names %s %v in its payload but %q in its envelope: %s", f.Type, k.key, v, lmp.Deref(k.envelope), c.Describe(f))
	}
}

// pairedStart returns the index in open of the run.tool_started that fin
// pairs with (F-3): the one of its iteration and index, or among several
// (calls of one tool) the one of its call_id; -1 when none.
func pairedStart(open []lmp.RunToolStarted, fin lmp.RunToolFinished) int {
	found := -1
	for i, o := range open {
		if o.Iteration != fin.Iteration || o.Index != fin.Index {
			continue
		}
		if found < 0 || (o.CallID != "" && o.CallID == fin.CallID) {
			found = i
		}
	}
	return found
}

// describeOpen renders open tool calls for a failure message.
func describeOpen(open []lmp.RunToolStarted) string {
	if len(open) == 0 {
		return "none"
	}
	out := make([]string, len(open))
	for i, o := range open {
		out[i] = fmt.Sprintf("%s %q (iteration %d, index %d)", o.Tool, o.CallID, o.Iteration, o.Index)
	}
	return strings.Join(out, ", ")
}

// runFramesOf takes the run.* frames of task from c, in order, up to the
// first terminal frame.
func runFramesOf(ctx ginkgo.SpecContext, c *conformance.Conn, task string) []client.Frame {
	ginkgo.GinkgoHelper()
	runTypes := match.Type(lmp.TypeRunStarted, lmp.TypeRunDelta, lmp.TypeRunInterim, lmp.TypeRunToolStarted,
		lmp.TypeRunToolFinished, lmp.TypeRunCompleted, lmp.TypeRunFailed)
	var out []client.Frame
	for {
		f := must.Expect(ctx, c, match.Task(task).And(runTypes))
		out = append(out, f)
		if match.Terminal().Match(f) {
			return out
		}
	}
}

// countType counts the frames of type typ.
func countType(fs []client.Frame, typ string) int {
	n := 0
	for _, f := range fs {
		if f.Type == typ {
			n++
		}
	}
	return n
}

// afterMarker sends a notification into a fresh chat and returns the
// frames c holds once it arrived: everything sent before it.
func afterMarker(ctx ginkgo.SpecContext, c *conformance.Conn) []client.Frame {
	ginkgo.GinkgoHelper()
	marker := notify(ctx, should.NewID("task_cf"))
	// Matched by text: Hermes passes no title, so an adapter may derive its own.
	must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("text", "text of "+marker)))
	return c.Pending()
}

// runFrame waits for the turn's next frame of type typ.
func runFrame(ctx context.Context, c *conformance.Conn, t turn, typ string) client.Frame {
	ginkgo.GinkgoHelper()
	return must.Expect(ctx, c, match.Task(t.task).And(match.Type(typ)))
}

// nextReplyRun sends the event source's reply trigger into task, as a
// session.send with its task_id, and returns the run.started of the run
// that starts in that task.
func nextReplyRun(ctx ginkgo.SpecContext, c *conformance.Conn, task string) lmp.RunStarted {
	ginkgo.GinkgoHelper()
	sendTrigger(ctx, c, lmp.SessionSend{TaskID: &task, Text: conformance.Events(ctx).Text(conformance.TriggerReply, 0)})
	return must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(task).And(match.Type(lmp.TypeRunStarted))))
}
