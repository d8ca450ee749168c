package suites

import (
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

// Real Hermes turns (hermes.md): stream hooks per model call,
// on_stream_end(finished=true) after every successful call, retries under
// the same turn_id, payloads dropped whole, process-wide hooks, and the
// final reply through send(). A run is one turn (§2: run_id is the ID of
// one agent turn).

// runFramesOf takes the run.* frames of task from c, in order, up to the
// first terminal frame.
func runFramesOf(ctx ginkgo.SpecContext, c *conformance.Conn, task string) []client.Frame {
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
	marker := notify(ctx, should.NewID("task_cf"))
	// Matched by text: Hermes passes no title, so an adapter may derive its own.
	must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("text", "text of "+marker)))
	return c.Pending()
}

var _ = conformance.Section("§7 Hermes turns", "turns", func() {
	conformance.It("H-1,H-2", rules.MUST, "a turn that calls tools is one run: its tool calls and later model calls carry the run_id of its run.started, and its terminal frame comes last", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.end(ctx, "Let me look.", nil) // finished: the call asks for two tools
		t.tool(ctx, false, "read_file", "call_a")
		t.tool(ctx, false, "read_file", "call_b")
		t.tool(ctx, true, "read_file", "call_b")
		t.tool(ctx, true, "read_file", "call_a")
		t.answer(ctx, 2, "Both files read.")

		fs := runFramesOf(ctx, c, t.task)
		Expect(fs[0].Type).To(Equal(lmp.TypeRunStarted), "the turn's first frame")
		st := must.Decode[lmp.RunStarted](fs[0])
		for _, f := range fs {
			Expect(lmp.Deref(f.RunID)).To(Equal(st.RunID), "every frame of the turn names its run: %s", f.Raw)
		}
		Expect(countType(fs, lmp.TypeRunToolStarted)).To(Equal(2), "tool calls before the run's terminal frame")
		Expect(countType(fs, lmp.TypeRunToolFinished)).To(Equal(2), "tool calls finished before the run's terminal frame")
		Expect(countType(fs, lmp.TypeRunDelta)).To(Equal(1), "the second model call's delta before the run's terminal frame")
		last := fs[len(fs)-1]
		Expect(last.Type).To(Equal(lmp.TypeRunCompleted), "terminal frame of a turn that completed: %s", last.Raw)
		Expect(must.Decode[lmp.RunCompleted](last).Status).To(Equal(lmp.RunStatusCompleted))
		for _, f := range afterMarker(ctx, c) {
			Expect(lmp.Deref(f.RunID)).NotTo(Equal(st.RunID), "a frame after the run's terminal frame: %s", f.Raw)
		}
	}, conformance.NeedsDriver)

	conformance.It("H-1", rules.SHOULD, "the run of a turn ends when the turn ends, with the text of its final reply (note 17)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.end(ctx, "", nil) // a call that asks for a tool
		t.tool(ctx, false, "terminal", "call_ls")
		t.tool(ctx, true, "terminal", "call_ls")
		t.answer(ctx, 2, "Two files.")
		fs := runFramesOf(ctx, c, t.task)
		done := must.Decode[lmp.RunCompleted](fs[len(fs)-1])
		Expect(done.Status).To(Equal(lmp.RunStatusCompleted))
		Expect(done.Text).To(Equal("Two files."), "run.completed.text is the turn's final text, not its first call's")
		Expect(countType(fs, lmp.TypeRunToolFinished)).To(Equal(1))
	}, conformance.NeedsDriver)

	conformance.It("F-4", rules.MUST, "a model call that fails and is retried in the same turn does not fail the run", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.end(ctx, "", "provider error: 529 overloaded")
		t.hook(ctx, "on_stream_start", nil) // Hermes retries the call under the same turn_id
		t.delta(ctx, "Got through.", lmp.DeltaKindText)
		t.end(ctx, "Got through.", nil)
		t.complete(ctx, "Got through.")
		fs := runFramesOf(ctx, c, t.task)
		last := fs[len(fs)-1]
		Expect(last.Type).To(Equal(lmp.TypeRunCompleted), "a retried error ended the run: %s", last.Raw)
		Expect(must.Decode[lmp.RunCompleted](last).Status).To(Equal(lmp.RunStatusCompleted), "status of a turn that completed")
		Expect(countType(fs, lmp.TypeRunStarted)).To(Equal(1), "one run for the turn")
	}, conformance.NeedsDriver)

	conformance.It("H-1", rules.MUST, "a run whose on_stream_end never arrives ends with the turn's final reply through send()", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.delta(ctx, "A long answer", lmp.DeltaKindText)
		// on_stream_end is over 16 KiB: Hermes drops it whole.
		t.complete(ctx, "A long answer")
		last := must.Expect(ctx, c, match.Task(t.task).And(match.Terminal()))
		Expect(last.Type).To(Equal(lmp.TypeRunCompleted), "terminal frame: %s", last.Raw)
	}, conformance.NeedsDriver)

	conformance.It("H-1", rules.SHOULD, "a run whose on_stream_end never arrives still ends at on_session_end, without a final reply (note 17)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.delta(ctx, "partial", lmp.DeltaKindText)
		t.sessionEnd(ctx, true, false)
		last := must.Expect(ctx, c, match.Task(t.task).And(match.Terminal()))
		Expect(last.Type).To(Equal(lmp.TypeRunCompleted), "terminal frame: %s", last.Raw)
	}, conformance.NeedsDriver)

	conformance.It("H-1", rules.SHOULD, "turns of another platform and of subagents are not shown to phones (note 19)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		own := newTurn(ctx, c)
		marker := should.NewID("foreign text ")
		foreign := []turn{
			{task: should.NewID("tg_chat_"), session: should.NewID("20261201_101500_"), id: should.NewID("turn_tg_")},
			// A subagent of the device's turn: its own session and task id.
			{task: own.task, session: should.NewID("20261201_101501_"), id: should.NewID("turn_sub_"), sender: own.sender},
		}
		surfaces := []string{"telegram", platform}
		for i, f := range foreign {
			task := f.session
			if i == 1 {
				task = should.NewID("subagent_")
			}
			fire(ctx, "pre_llm_call", map[string]any{"session_id": f.session, "task_id": task, "turn_id": f.id,
				"user_message": "hi", "conversation_history": []any{}, "is_first_turn": true, "model": "mock-model",
				"platform": surfaces[i], "sender_id": f.sender}, nil)
			base := map[string]any{"turn_id": f.id, "iteration": 1, "session_id": f.session, "model": "mock-model",
				"provider": "mock", "surface": surfaces[i]}
			fire(ctx, "on_stream_start", base, nil)
			fire(ctx, "on_stream_delta", base, map[string]any{"delta": marker, "kind": lmp.DeltaKindText})
			fire(ctx, "on_stream_end", base, map[string]any{"final_text": marker, "finished": true, "error": nil})
			fire(ctx, "on_session_end", map[string]any{"session_id": f.session, "task_id": task, "turn_id": f.id,
				"completed": true, "interrupted": false, "model": "mock-model", "platform": surfaces[i]}, nil)
		}
		for _, f := range afterMarker(ctx, c) {
			if strings.HasPrefix(f.Type, "run.") {
				Expect(string(f.Payload)).NotTo(gomegaContainSubstring(marker), "a foreign turn reached the phone: %s", f.Raw)
				for _, ft := range foreign {
					Expect(string(f.Payload)).NotTo(gomegaContainSubstring(ft.session), "a foreign turn reached the phone: %s", f.Raw)
				}
			}
		}
	}, conformance.NeedsDriver)

	conformance.It("H-3", rules.SHOULD, "an approval asked inside a tool turn belongs to the turn's run (approval.required.run_id)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunStarted))))
		t.end(ctx, "", nil)
		t.tool(ctx, false, "terminal", "call_rm")
		res, err := drv().Approval(ctx, driver.ApprovalRequest{TaskID: t.task, TurnID: t.id, ToolCallID: "call_rm",
			Command: "rm -rf ./build", Description: "recursive delete"})
		must.Succeed(err)
		req := must.Decode[lmp.ApprovalRequired](must.Expect(ctx, c, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID))))
		Expect(lmp.Deref(req.RunID)).To(Equal(st.RunID), "approval.required.run_id of an approval inside the turn")
		Expect(lmp.Deref(req.TaskID)).To(Equal(t.task), "approval.required.task_id is the chat's task (note 18)")
		rid := should.NewID("rq-")
		must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceOnce, RequestID: rid}, rid)
		must.Expect(ctx, c, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ApprovalID)))
		t.tool(ctx, true, "terminal", "call_rm")
		t.hookIn(ctx, 2, "on_stream_start", nil)
		t.endCall(ctx, 2, "Deleted.", nil)
		t.complete(ctx, "Deleted.")
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
	}, conformance.NeedsDriver)

	conformance.It("E-1", rules.SHOULD, "after /new starts a new Hermes session, the chat's runs keep its task_id (note 18)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		first := askForTurn(ctx, c, "hello "+should.NewID(""))
		takeRun(ctx, c, first.RunID)
		for _, text := range []string{"/new", "hello again " + should.NewID("")} {
			rid := should.NewID("rq-")
			must.Request(ctx, c, lmp.SessionSend{TaskID: &first.TaskID, Text: text, RequestID: rid}, rid)
		}
		// The device asked in no other chat: the next run is the chat's.
		next := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Type(lmp.TypeRunStarted)))
		Expect(next.SessionID).NotTo(Equal(first.SessionID), "/new gives the chat a new Hermes session")
		Expect(next.TaskID).To(Equal(first.TaskID), "task_id of the chat's run after /new")
		takeRun(ctx, c, next.RunID)
	}, conformance.NeedsDriver)

	conformance.It("H-4", rules.SHOULD, "a turn's final reply through send() completes its run and is not also a notification (note 20)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		reply := should.NewID("The answer is ")
		t.start(ctx)
		t.delta(ctx, reply, lmp.DeltaKindText)
		t.end(ctx, reply, nil)
		t.complete(ctx, reply)
		must.Expect(ctx, c, match.Task(t.task).And(match.Terminal()))
		for _, f := range afterMarker(ctx, c) {
			if f.Type == lmp.TypeNotification {
				Expect(must.Decode[lmp.Notification](f).Text).NotTo(Equal(reply), "the final reply came again as a notification: %s", f.Raw)
			}
		}
	}, conformance.NeedsDriver)
})
