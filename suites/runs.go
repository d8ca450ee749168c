package suites

import (
	"strings"

	"github.com/onsi/ginkgo/v2"

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
		Expect(st.TaskID).To(Equal(t.task))
		d1 := must.Decode[lmp.RunDelta](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunDelta))))
		Expect(d1.Kind).To(Equal(lmp.DeltaKindReasoning))
		d2 := must.Decode[lmp.RunDelta](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunDelta))))
		Expect(d2.Text).To(Equal("Hello"))
		Expect(d2.Kind).To(Equal(lmp.DeltaKindText))
		in := must.Decode[lmp.RunInterim](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunInterim))))
		Expect(in.Text).To(Equal("let me look"))
		done := must.Decode[lmp.RunCompleted](must.Expect(ctx, c, inTask.And(match.Terminal())))
		Expect(done.Status).To(Equal(lmp.RunStatusCompleted))
		Expect(done.Text).To(Equal("Hello"))
		for _, id := range []string{d1.RunID, d2.RunID, in.RunID, done.RunID} {
			Expect(id).To(Equal(st.RunID), "every frame of the turn names its run")
		}
	}, conformance.NeedsDriver)

	conformance.It("H-2,F-3", rules.MUST, "tool hooks map to run.tool_started/finished that pair by index and call_id", func(ctx ginkgo.SpecContext) {
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
		Expect(starts).To(HaveKey("call_a"))
		Expect(starts).To(HaveKey("call_b"))
		Expect(starts["call_a"].Index).NotTo(Equal(starts["call_b"].Index), "two calls of one iteration share an index")
		for _, want := range []string{"call_b", "call_a"} {
			f := must.Decode[lmp.RunToolFinished](must.Expect(ctx, c, inTask.And(match.Type(lmp.TypeRunToolFinished))))
			Expect(f.CallID).To(Equal(want))
			Expect(f.Index).To(Equal(starts[want].Index), "finish of %s pairs with its start by index", want)
			Expect(f.Tool).To(Equal("read_file"))
			Expect(f.OK).To(BeTrue())
			Expect(f.Duration).To(BeNumerically("~", 1.5, 0.001), "duration in seconds")
		}
	}, conformance.NeedsDriver)

	conformance.It("F-4", rules.MUST, "a run that ends with an error sends run.failed", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.end(ctx, "", "model overloaded")
		t.sessionEnd(ctx, false, false) // not retried: the turn failed
		f := must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunFailed)))
		Expect(must.Decode[lmp.RunFailed](f).Error).To(Equal("model overloaded"))
	}, conformance.NeedsDriver)

	conformance.It("F-4", rules.SHOULD, "exactly one terminal frame per run, and nothing after it (note 6)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.end(ctx, "", "boom")
		t.sessionEnd(ctx, false, false)
		t.delta(ctx, "late", lmp.DeltaKindText)
		t.end(ctx, "late", nil)
		marker := notify(ctx, t.task)
		must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("title", marker)))
		var terminal, after int
		for _, f := range c.Pending() {
			if lmp.Deref(f.TaskID) != t.task {
				continue
			}
			switch {
			case f.Type == lmp.TypeRunCompleted || f.Type == lmp.TypeRunFailed:
				terminal++
			case terminal > 0 && f.Type != lmp.TypeNotification:
				after++
			}
		}
		Expect(terminal).To(Equal(1), "terminal frames")
		Expect(after).To(Equal(0), "frames after the terminal frame")
	}, conformance.NeedsDriver)

	conformance.It("F-5", rules.MUST, "session.send without task_id injects the message into Hermes in a new task", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		text := "/mock help " + should.NewID("")
		rid := should.NewID("rq-")
		f := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		Expect(f.Type).To(Equal(lmp.TypeAck), "session.send answer: %s", f.Raw)
		got := eventuallyCalls(ctx, 1, "handle_message", withText(text))
		Expect(got).To(gomegaHaveLen(1))
		ack := must.Decode[lmp.Ack](f)
		Expect(lmp.Deref(ack.TaskID)).NotTo(Equal(""), "ack names the new task (note 5)")
	}, conformance.NeedsDriver)

	conformance.It("F-6", rules.MUST, "run.cancel interrupts the turn (the gateway's /stop) and the run ends", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		play, st := startLongRun(ctx, c)
		must.Send(ctx, c, lmp.RunCancel{RunID: st.RunID})
		eventuallyCalls(ctx, 1, "interrupt_session_activity", argIs("chat_id", play.TaskID))
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
	}, conformance.NeedsDriver)

	conformance.It("F-6", rules.SHOULD, "a cancelled run ends with run.completed status cancelled (note 6)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		_, st := startLongRun(ctx, c)
		must.Send(ctx, c, lmp.RunCancel{RunID: st.RunID})
		f := must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
		Expect(f.Type).To(Equal(lmp.TypeRunCompleted), "terminal frame of a cancelled run: %s", f.Raw)
		Expect(must.Decode[lmp.RunCompleted](f).Status).To(Equal(lmp.RunStatusCancelled))
	}, conformance.NeedsDriver)

	conformance.It("F-7", rules.MUST, "run.pause is a soft interrupt that keeps the session; run.resume injects \"continue\"", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		play, st := startLongRun(ctx, c)
		must.Send(ctx, c, lmp.RunPause{RunID: st.RunID})
		eventuallyCalls(ctx, 1, "interrupt_session_activity", argIs("chat_id", play.TaskID))
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
		must.Send(ctx, c, lmp.RunResume{RunID: st.RunID})
		got := eventuallyCalls(ctx, 1, "handle_message", func(call driver.Call) bool {
			ev, _ := call.Args["event"].(map[string]any)
			src, _ := ev["source"].(map[string]any)
			return src["chat_id"] == play.TaskID && strings.Contains(strings.ToLower(messageText(call)), "continue")
		})
		Expect(strings.ToLower(messageText(got[len(got)-1]))).To(gomegaContainSubstring("continue"))
		// The resumed turn runs "reply" in the same task; stop it.
		next := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(play.TaskID).And(match.Type(lmp.TypeRunStarted))))
		Expect(next.RunID).NotTo(Equal(st.RunID), "run.resume starts a new run in the same task")
		must.Expect(ctx, c, match.Run(next.RunID).And(match.Terminal()))
	}, conformance.NeedsDriver)
})
