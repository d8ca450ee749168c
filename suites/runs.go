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
)

var _ = conformance.Section(sectionRuns, func(specs *conformance.Specs) {
	specs.It("H-1,F-1", rules.MUST, "stream hooks map to run.started, run.delta, run.interim and run.completed", func(ctx ginkgo.SpecContext) {
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

	// run.delta comes from on_stream_delta, one visible chunk of the
	// answer or of its reasoning (H-1), and run.completed.text from the
	// call's final_text, of which the text chunks are part: a run that
	// streamed answer text completes with text. The converse does not
	// hold (an answer may come whole, without deltas), nor may the chunks
	// be required to add up to the text (Hermes drops hook payloads).
	specs.It("H-1,F-1", rules.MUST, "a reply run streams text or reasoning run.delta, and completes with text when it streamed text", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r, err := conformance.Events(ctx).Reply(ctx, c)
		must.Succeed(err, "start a reply run")
		frames := runFramesOf(ctx, c, r.Task)
		var deltas, streamed int
		var text strings.Builder // the text deltas' text
		for _, f := range frames {
			if f.Type != lmp.TypeRunDelta {
				continue
			}
			d := must.Decode[lmp.RunDelta](f)
			must.That(d.Kind == lmp.DeltaKindText || d.Kind == lmp.DeltaKindReasoning, "run.delta kind: want text or reasoning, got %q: %s", d.Kind, c.Describe(f))
			deltas++
			if d.Text != "" {
				streamed++
			}
			if d.Kind == lmp.DeltaKindText {
				text.WriteString(d.Text)
			}
		}
		if deltas == 0 {
			conformance.NotObserved("H-1,F-1", "the reply run streamed no run.delta")
			return
		}
		must.That(streamed > 0, "all %d run.delta frames of run %s carry an empty text: a delta is a chunk of the stream", deltas, lmp.Deref(frames[0].RunID))
		end := frames[len(frames)-1]
		if end.Type != lmp.TypeRunCompleted || text.Len() == 0 {
			return
		}
		done := must.Decode[lmp.RunCompleted](end)
		if done.Status == lmp.RunStatusCompleted {
			must.That(done.Text != "", "run.completed of run %s: want the final text, got an empty text, though its text deltas streamed %q", done.RunID, lmp.Shorten(text.String()))
		}
	}, conformance.NeedsEvents)

	// §4 lists run_id (and, for run.started and approval.required, task_id)
	// among the payload fields, and §2 puts the same ids in the envelope: a
	// frame is about one run of one task, so the two must agree. A payload
	// that leaves a field out says nothing, and is not checked here.
	specs.It("F-1,E-1", rules.MUST, "a payload's run_id and task_id name its envelope's run and task (run frames, approval.required)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		_, task := sendTrigger(ctx, c, lmp.SessionSend{Text: conformance.Events(ctx).Text(conformance.TriggerApproval, 0)})
		var req client.Frame
		for req.Type != lmp.TypeApprovalRequired {
			req = must.Expect(ctx, c, match.Task(task).And(match.Durable()))
			payloadNamesEnvelope(c, req)
			must.That(!match.Terminal().Match(req), "the approval run in task %s ended before it asked for its approval: %s", task, c.Describe(req))
		}
		id := must.Decode[lmp.ApprovalRequired](req).ApprovalID
		must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: id, Choice: lmp.ChoiceDeny})
		for {
			f := must.Expect(ctx, c, match.Task(task).And(match.Durable()))
			payloadNamesEnvelope(c, f)
			if match.Terminal().Match(f) {
				return
			}
		}
	}, conformance.NeedsEvents)

	specs.It("H-2,F-3", rules.MUST, "tool hooks map to run.tool_started/finished that pair by index and call_id", func(ctx ginkgo.SpecContext) {
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

	// F-3: a client pairs run.tool_finished with run.tool_started by
	// index, and by call_id among calls of one tool in one iteration.
	// Whatever numbering a server chose (per iteration, per run), a finish
	// must find its start: an earlier run.tool_started of its run, still
	// open, of the same iteration and index, naming the same tool (H-2:
	// both come from the hooks of one call) and, when the finish's call_id
	// names an open start, that start. Two open calls of one iteration may
	// share an index only as calls of one tool told apart by call_id. And
	// Hermes fires post_tool_call after each tool, so a run that completed
	// left no call open. In band, so that any server's tool run shows it.
	specs.It("H-2,F-3", rules.MUST, "each run.tool_finished closes an open run.tool_started of its call; a completed run leaves none open", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		src := conformance.Events(ctx)
		_, task := sendTrigger(ctx, c, lmp.SessionSend{Text: src.Text(conformance.TriggerToolRun, 0)})
		fs := runFramesOf(ctx, c, task)
		var open []lmp.RunToolStarted
		starts := 0
		for _, f := range fs {
			switch f.Type {
			case lmp.TypeRunToolStarted:
				s := must.Decode[lmp.RunToolStarted](f)
				starts++
				must.That(s.Tool != "", "run.tool_started names no tool, though pre_tool_call names the tool it runs: %s", c.Describe(f))
				for _, o := range open {
					if o.Iteration == s.Iteration && o.Index == s.Index {
						must.That(o.Tool == s.Tool && o.CallID != "" && s.CallID != "" && o.CallID != s.CallID,
							"run.tool_started takes index %d of iteration %d while call %q of %s still holds it, and no call_id tells them apart: %s", s.Index, s.Iteration, o.CallID, o.Tool, c.Describe(f))
					}
				}
				open = append(open, s)
			case lmp.TypeRunToolFinished:
				fin := must.Decode[lmp.RunToolFinished](f)
				i := pairedStart(open, fin)
				must.That(i >= 0, "run.tool_finished pairs with no open run.tool_started of iteration %d and index %d (open: %s): %s", fin.Iteration, fin.Index, describeOpen(open), c.Describe(f))
				for j, o := range open {
					must.That(fin.CallID == "" || o.CallID != fin.CallID || j == i,
						"run.tool_finished of call_id %q pairs by index %d with call %q, not with its own call's run.tool_started (index %d): %s", fin.CallID, fin.Index, open[i].CallID, o.Index, c.Describe(f))
				}
				must.Equal("tool of a run.tool_finished (its run.tool_started's)", fin.Tool, open[i].Tool)
				open = append(open[:i], open[i+1:]...)
			}
		}
		if starts == 0 {
			must.That(src.Source() != conformance.SourceDriver, "the mock Hermes' tool run showed no run.tool_started")
			conformance.NotObserved("H-2,F-3", "the tool run showed no tool call: it may have been a single model call")
			return
		}
		end := fs[len(fs)-1]
		if end.Type == lmp.TypeRunCompleted && must.Decode[lmp.RunCompleted](end).Status == lmp.RunStatusCompleted {
			must.That(len(open) == 0, "run %s completed with tool calls it never finished: %s", lmp.Deref(end.RunID), describeOpen(open))
		}
	}, conformance.NeedsEvents)

	specs.It("H-2", rules.INFO, "run.tool_finished.duration is Hermes' duration_ms in seconds (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		_, finishes := toolTurn(ctx)
		var soft must.Soft
		for _, f := range finishes {
			soft.That(math.Abs(f.Duration-1.5) < 0.001, "%s: duration %v for duration_ms 1500, want 1.5", f.CallID, f.Duration)
		}
		soft.Done()
	}, conformance.NeedsDriver)

	specs.It("F-4", rules.MUST, "a run that ends with an error sends run.failed", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r, err := conformance.Events(ctx).FailingRun(ctx, c)
		must.Succeed(err, "start a failing run")
		f := must.Expect(ctx, c, match.Task(r.Task).And(match.Type(lmp.TypeRunFailed)))
		must.That(must.Decode[lmp.RunFailed](f).Error != "", "run.failed carries an empty error: %s", c.Describe(f))
	}, conformance.NeedsEvents)

	specs.It("F-4", rules.SHOULD, "a failed run ends with one terminal frame or run.failed then run.completed, nothing after (note 6)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		ends, after := failedRunEnd(ctx, c)
		var soft must.Soft
		pair := len(ends) == 2 && ends[0].Type == lmp.TypeRunFailed && ends[1].Type == lmp.TypeRunCompleted &&
			must.Decode[lmp.RunCompleted](ends[1]).Status == lmp.RunStatusFailed
		soft.That(len(ends) == 1 || pair, "a failed run ended with %s", describeAll(c, ends))
		soft.That(len(after) == 0, "after its end the run sent %s", describeAll(c, after))
		soft.Done()
	}, conformance.NeedsEvents, conformance.DriverFirst)

	specs.It("F-4", rules.INFO, "a failed run ends with run.failed alone (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		ends, _ := failedRunEnd(ctx, c)
		must.That(len(ends) == 1 && ends[0].Type == lmp.TypeRunFailed, "a failed run ended with %s", describeAll(c, ends))
	}, conformance.NeedsEvents, conformance.DriverFirst)

	specs.It("F-5", rules.MUST, "session.send without task_id injects the message into Hermes in a new task", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		text := conformance.Events(ctx).Text(conformance.TriggerReply, 0)
		f := must.Request(ctx, c, lmp.SessionSend{Text: text})
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

	specs.It("F-5", rules.MUST, "session.send with a task_id starts its run in that task", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		// A server that ignored task_id would start the run in another
		// task, and the wait for it would fail.
		next := nextReplyRun(ctx, c, replyRun(ctx, c).TaskID)
		must.Expect(ctx, c, match.Run(next.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents)

	// A new task is a conversation of its own (a Hermes session of its
	// own): a message into it reaches no other task's turn, and Hermes
	// interrupts a busy chat's turn for every message into that chat.
	specs.It("F-5", rules.MUST, "session.send without task_id opens a task of its own: another task's run streams on", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		long := startLongRun(ctx, c)
		r, err := conformance.Events(ctx).Reply(ctx, c)
		must.Succeed(err, "start a reply run")
		must.That(r.Task != long.Task, "session.send without task_id went into task %s, which already has run %s", r.Task, long.Started.RunID)
		// The reply run's end comes after Hermes took its message.
		streamsOn(ctx, c, long.Started.RunID, match.Task(r.Task).And(match.Terminal()), "after a reply run in task "+r.Task)
		must.Send(ctx, c, lmp.RunCancel{RunID: long.Started.RunID})
		must.Expect(ctx, c, match.Run(long.Started.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents)

	// Hermes takes a message into a busy chat: by default it interrupts
	// the running turn (queue and steer modes are opt-in, hermes.md).
	// session.send into a task whose run still streams injects the message
	// all the same (F-5); what Hermes then does with the running turn is
	// its own. The long run is cancelled at the end, whichever way it went.
	specs.It("F-5", rules.MUST, "session.send into a task whose run is still streaming injects the message: it is not refused", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		long := startLongRun(ctx, c)
		task := long.Task
		text := conformance.Events(ctx).Text(conformance.TriggerReply, 0)
		f := must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text})
		must.That(f.Type != lmp.TypeError, "session.send into task %s, whose run %s is streaming, was refused: %s", task, long.Started.RunID, c.Describe(f))
		hermesHalf(ctx, func() {
			eventuallyCalls(ctx, 1, "handle_message", func(call driver.Call) bool {
				ev, _ := call.Args["event"].(map[string]any)
				src, _ := ev["source"].(map[string]any)
				return src["chat_id"] == task && messageText(call) == text
			})
		})
		must.Send(ctx, c, lmp.RunCancel{RunID: long.Started.RunID})
		must.Expect(ctx, c, match.Run(long.Started.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents, conformance.DriverFirst)

	specs.It("F-6", rules.MUST, "run.cancel interrupts the turn (the gateway's /stop) and the run ends", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r := startLongRun(ctx, c)
		must.Send(ctx, c, lmp.RunCancel{RunID: r.Started.RunID})
		hermesHalf(ctx, func() { eventuallyCalls(ctx, 1, "interrupt_session_activity", argIs("chat_id", r.Task)) })
		must.Expect(ctx, c, match.Run(r.Started.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents, conformance.DriverFirst)

	specs.It("F-6", rules.INFO, "a cancelled run ends with run.completed status cancelled (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r := startLongRun(ctx, c)
		must.Send(ctx, c, lmp.RunCancel{RunID: r.Started.RunID})
		f := must.Expect(ctx, c, match.Run(r.Started.RunID).And(match.Terminal()))
		must.That(f.Type == lmp.TypeRunCompleted && must.Decode[lmp.RunCompleted](f).Status == lmp.RunStatusCancelled,
			"a cancelled run ended with %s", c.Describe(f))
	}, conformance.NeedsEvents)

	specs.It("F-6", rules.MUST, "cancelling a run that has ended does not interrupt the task's next run", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		driverSide := conformance.Events(ctx).Source() == conformance.SourceDriver
		// A run that ended by itself, then a long run in the same task.
		run1 := replyRun(ctx, c)
		task := run1.TaskID
		sendTrigger(ctx, c, lmp.SessionSend{TaskID: &task, Text: conformance.Events(ctx).Text(conformance.TriggerLongRun, 0)})
		run2 := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(task).And(match.Type(lmp.TypeRunStarted))))
		stops := func() int { return len(calls(ctx, "handle_message", withText(stopCommand))) }
		before := 0
		if driverSide {
			before = stops()
		}
		must.Send(ctx, c, lmp.RunCancel{RunID: run1.RunID})
		// The pong follows the cancel: the server has handled it.
		must.Send(ctx, c, lmp.Ping{})
		streamsOn(ctx, c, run2.RunID, match.Type(lmp.TypePong), "after run.cancel of ended run "+run1.RunID)
		hermesHalf(ctx, func() {
			after := stops()
			must.That(after == before, "cancelling ended run %s sent Hermes %s (run %s is the task's current one): %d such message(s), %d before", run1.RunID, stopCommand, run2.RunID, after, before)
		})
		must.Send(ctx, c, lmp.RunCancel{RunID: run2.RunID})
		must.Expect(ctx, c, match.Run(run2.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents, conformance.DriverFirst)

	// run.cancel names a run: the turn it interrupts is that run's, in
	// that run's task. A run of another task is another Hermes session's
	// turn, and streams on.
	specs.It("F-6", rules.MUST, "run.cancel interrupts the turn of the run it names: a run of another task streams on", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		first := startLongRun(ctx, c)
		second := startLongRun(ctx, c)
		must.That(first.Task != second.Task, "two long runs asked for without task_id share task %s", first.Task)
		must.Send(ctx, c, lmp.RunCancel{RunID: first.Started.RunID})
		streamsOn(ctx, c, second.Started.RunID, match.Run(first.Started.RunID).And(match.Terminal()), "after run.cancel of run "+first.Started.RunID+" of another task")
		must.Send(ctx, c, lmp.RunCancel{RunID: second.Started.RunID})
		must.Expect(ctx, c, match.Run(second.Started.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents)

	specs.It("F-7", rules.MUST, "run.pause is a soft interrupt that keeps the session; run.resume injects \"continue\"", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		r := startLongRun(ctx, c)
		st := r.Started
		must.Send(ctx, c, lmp.RunPause{RunID: st.RunID})
		hermesHalf(ctx, func() { eventuallyCalls(ctx, 1, "interrupt_session_activity", argIs("chat_id", r.Task)) })
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
		must.Send(ctx, c, lmp.RunResume{RunID: st.RunID})
		hermesHalf(ctx, func() {
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
		// The pause kept the session: the resumed turn is Hermes' next turn
		// of the paused run's session, whose id run.started carries (H-1).
		must.Equal("session_id of the resumed run (run.pause keeps the paused run's session)", next.SessionID, st.SessionID)
		must.Expect(ctx, c, match.Run(next.RunID).And(match.Terminal()))
	}, conformance.NeedsEvents, conformance.DriverFirst)
})
