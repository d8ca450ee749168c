package suites

import (
	"fmt"
	"math"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section("§4 Run lifecycle", "runs", func() {
	conformance.It("H-1,F-1", rules.MUST, "stream hooks map to run.started, run.delta, run.interim and run.completed", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.delta(ctx, "thinking…", lmp.DeltaKindReasoning)
		t.delta(ctx, "Hello", lmp.DeltaKindText)
		t.hook(ctx, "on_interim_message", map[string]any{"text": "let me look", "already_streamed": false})
		t.end(ctx, "Hello", nil)
		t.complete(ctx, "Hello")
		inTask := match.Task(t.task)
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunStarted))))
		must.Equal("run.started task_id", st.TaskID, t.task)
		d1 := must.Decode[lmp.RunDelta](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunDelta))))
		must.Equal("first run.delta kind", d1.Kind, lmp.DeltaKindReasoning)
		d2 := must.Decode[lmp.RunDelta](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunDelta))))
		must.Equal("second run.delta text", d2.Text, "Hello")
		must.Equal("second run.delta kind", d2.Kind, lmp.DeltaKindText)
		in := must.Decode[lmp.RunInterim](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunInterim))))
		must.Equal("run.interim text", in.Text, "let me look")
		end := must.Expect(ctx, c, inTask.And(match.Terminal()))
		must.Equal("terminal frame of a run that ended without an error", end.Type, lmp.TypeRunCompleted)
		done := must.Decode[lmp.RunCompleted](end)
		must.Equal("run.completed status", done.Status, lmp.RunStatusCompleted)
		must.Equal("run.completed text", done.Text, "Hello")
		for _, id := range []string{d1.RunID, d2.RunID, in.RunID, done.RunID} {
			must.Equal("run_id of a frame of the turn", id, st.RunID)
		}
	}, conformance.NeedsDriver)

	conformance.It("H-2,F-3", rules.MUST, "tool hooks map to run.tool_started/finished that pair by index and call_id", func(ctx ginkgo.SpecContext) {
		starts, finishes := toolTurn(ctx)
		_, a := starts["call_a"]
		_, b := starts["call_b"]
		must.That(a && b, "run.tool_started for call_a and call_b: got %v", starts)
		must.That(starts["call_a"].Index != starts["call_b"].Index, "two calls of one iteration share index %d", starts["call_a"].Index)
		for i, want := range []string{"call_b", "call_a"} {
			f := finishes[i]
			must.Equal("call_id of run.tool_finished "+fmt.Sprint(i+1), f.CallID, want)
			must.Equal("index of the finish of "+want+" (its start's)", f.Index, starts[want].Index)
			must.Equal("tool of the finish of "+want, f.Tool, "read_file")
			must.That(f.OK, "the finish of %s says ok false", want)
		}
	}, conformance.NeedsDriver)

	conformance.It("H-2", rules.INFO, "run.tool_finished.duration is Hermes' duration_ms in seconds (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		_, finishes := toolTurn(ctx)
		var soft must.Soft
		for _, f := range finishes {
			soft.That(math.Abs(f.Duration-1.5) < 0.001, "%s: duration %v for duration_ms 1500, want 1.5", f.CallID, f.Duration)
		}
		soft.Done()
	}, conformance.NeedsDriver)

	conformance.It("F-4", rules.MUST, "a run that ends with an error sends run.failed", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r, err := conformance.Events().FailingRun(ctx, c)
		must.Succeed(err, "start a failing run")
		f := must.Expect(ctx, c, match.Task(r.Task).And(match.Type(lmp.TypeRunFailed)))
		must.That(must.Decode[lmp.RunFailed](f).Error != "", "run.failed carries an empty error: %s", c.Describe(f))
	}, conformance.NeedsEvents)

	conformance.It("F-4", rules.SHOULD, "a failed run ends with one terminal frame, or with run.failed then run.completed{status:failed}, and nothing after (note 6)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		ends, after := failedRunEnd(ctx, c)
		var soft must.Soft
		pair := len(ends) == 2 && ends[0].Type == lmp.TypeRunFailed && ends[1].Type == lmp.TypeRunCompleted &&
			must.Decode[lmp.RunCompleted](ends[1]).Status == lmp.RunStatusFailed
		soft.That(len(ends) == 1 || pair, "a failed run ended with %s", describeAll(c, ends))
		soft.That(len(after) == 0, "after its end the run sent %s", describeAll(c, after))
		soft.Done()
	}, conformance.NeedsEvents, conformance.DriverFirst)

	conformance.It("F-4", rules.INFO, "a failed run ends with run.failed alone (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		ends, _ := failedRunEnd(ctx, c)
		must.That(len(ends) == 1 && ends[0].Type == lmp.TypeRunFailed, "a failed run ended with %s", describeAll(c, ends))
	}, conformance.NeedsEvents, conformance.DriverFirst)

	conformance.It("F-5", rules.MUST, "session.send without task_id injects the message into Hermes in a new task", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		text := conformance.Events().Text("reply", 0)
		rid := should.NewID("rq-")
		f := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		must.That(f.Type != lmp.TypeError, "session.send was refused: %s", c.Describe(f))
		// Hermes took the message: a run starts in a new task, the one the
		// answer names when it names one (note 5).
		started := match.Type(lmp.TypeRunStarted)
		if task, _ := rawPayload(f)["task_id"].(string); task != "" {
			started = started.And(match.Task(task))
		}
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, started))
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents)

	conformance.It("F-6", rules.MUST, "run.cancel interrupts the turn (the gateway's /stop) and the run ends", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r := startLongRun(ctx, c)
		must.Send(ctx, c, lmp.RunCancel{RunID: r.Started.RunID})
		hermesHalf(func() { eventuallyCalls(ctx, 1, "interrupt_session_activity", argIs("chat_id", r.Task)) })
		must.Expect(ctx, c, match.Run(r.Started.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents, conformance.DriverFirst)

	conformance.It("F-6", rules.INFO, "a cancelled run ends with run.completed status cancelled (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r := startLongRun(ctx, c)
		must.Send(ctx, c, lmp.RunCancel{RunID: r.Started.RunID})
		f := must.Expect(ctx, c, match.Run(r.Started.RunID).And(match.Terminal()))
		must.That(f.Type == lmp.TypeRunCompleted && must.Decode[lmp.RunCompleted](f).Status == lmp.RunStatusCancelled,
			"a cancelled run ended with %s", c.Describe(f))
	}, conformance.NeedsEvents)

	conformance.It("F-7", rules.MUST, "run.pause is a soft interrupt that keeps the session; run.resume injects \"continue\"", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r := startLongRun(ctx, c)
		st := r.Started
		must.Send(ctx, c, lmp.RunPause{RunID: st.RunID})
		hermesHalf(func() { eventuallyCalls(ctx, 1, "interrupt_session_activity", argIs("chat_id", r.Task)) })
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
		must.Send(ctx, c, lmp.RunResume{RunID: st.RunID})
		hermesHalf(func() {
			got := eventuallyCalls(ctx, 1, "handle_message", func(call driver.Call) bool {
				ev, _ := call.Args["event"].(map[string]any)
				src, _ := ev["source"].(map[string]any)
				return src["chat_id"] == r.Task && strings.Contains(strings.ToLower(messageText(call)), "continue")
			})
			text := messageText(got[len(got)-1])
			must.That(strings.Contains(strings.ToLower(text), "continue"), "run.resume injected %q, not a \"continue\" message", text)
		})
		// The resumed turn runs in the same task; wait for its end.
		next := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(r.Task).And(match.Type(lmp.TypeRunStarted))))
		must.That(next.RunID != st.RunID, "run.resume did not start a new run: run.started names the paused run %s", st.RunID)
		must.Expect(ctx, c, match.Run(next.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents, conformance.DriverFirst)
})

// toolTurn plays a turn with two calls of one tool in one iteration,
// finished in the reverse order, and returns the run.tool_started frames
// by call_id and the run.tool_finished frames in arrival order.
func toolTurn(ctx ginkgo.SpecContext) (map[string]lmp.RunToolStarted, []lmp.RunToolFinished) {
	c := must.Pair(ctx, "device")
	t := newTurn(ctx, c)
	t.start(ctx)
	t.end(ctx, "", nil) // the call asks for the tools
	t.tool(ctx, false, "read_file", "call_a")
	t.tool(ctx, false, "read_file", "call_b")
	t.tool(ctx, true, "read_file", "call_b")
	t.tool(ctx, true, "read_file", "call_a")
	t.hookIn(ctx, 2, "on_stream_start", nil)
	t.endCall(ctx, 2, "done", nil)
	t.complete(ctx, "done")
	inTask := match.Task(t.task)
	starts := map[string]lmp.RunToolStarted{}
	for range 2 {
		s := must.Decode[lmp.RunToolStarted](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunToolStarted))))
		starts[s.CallID] = s
	}
	var finishes []lmp.RunToolFinished
	for range 2 {
		finishes = append(finishes, must.Decode[lmp.RunToolFinished](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunToolFinished)))))
	}
	return starts, finishes
}

// failedRunEnd has the event source run a turn that fails and returns the
// run's terminal frames (run.failed, run.completed) and the run's frames
// that came after the first of them, up to a marker notification sent once
// the run ended.
// Through the driver, hooks for the turn also arrive after its error: a
// late delta and a second end.
func failedRunEnd(ctx ginkgo.SpecContext, c *conformance.Conn) (ends, after []client.Frame) {
	var task string
	if conformance.Events().Source() == conformance.SourceDriver {
		t := newTurn(ctx, c)
		t.start(ctx)
		t.end(ctx, "", "boom")
		t.sessionEnd(ctx, false, false) // not retried: the turn failed
		t.delta(ctx, "late", lmp.DeltaKindText)
		t.end(ctx, "late", nil)
		task = t.task
	} else {
		r, err := conformance.Events().FailingRun(ctx, c)
		must.Succeed(err, "start a failing run")
		task = r.Task
	}
	failed := must.Expect(ctx, c, match.Task(task).And(match.Type(lmp.TypeRunFailed)))
	if conformance.Events().Source() == conformance.SourceDriver {
		// A marker in the run's own task, after its late hooks.
		must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("title", notify(ctx, task))))
	} else {
		must.Expect(ctx, c, notifications(ctx, c, 1).Match())
	}
	// The run's own frames: a notification in its task (Hermes' gateway
	// telling of the failure, say) is not part of the run.
	ends = []client.Frame{failed}
	for _, f := range pendingIn(c, task, match.Durable().And(match.Run(must.Decode[lmp.RunFailed](failed).RunID))) {
		switch {
		case f.Seq <= failed.Seq:
			// the run's frames before its end
		case match.Terminal().Match(f) && len(after) == 0:
			ends = append(ends, f)
		default:
			after = append(after, f)
		}
	}
	return ends, after
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
