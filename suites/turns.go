package suites

import (
	"fmt"
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

// Real Hermes turns (hermes.md): stream hooks per model call,
// on_stream_end(finished=true) after every successful call, retries under
// the same turn_id, payloads dropped whole, process-wide hooks, and the
// final reply through send(). A run is one turn (§2: run_id is the ID of
// one agent turn).

var _ = conformance.Section(sectionTurns, func(specs *conformance.Specs) {
	specs.It("H-1,H-2", rules.MUST, "a turn that calls tools is one run: all its frames carry one run_id, its terminal frame last", func(ctx ginkgo.SpecContext) {
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
		must.Equal("type of the turn's first frame", fs[0].Type, lmp.TypeRunStarted)
		st := must.Decode[lmp.RunStarted](fs[0])
		for _, f := range fs {
			must.That(lmp.Deref(f.RunID) == st.RunID, "a frame of the turn names another run than its run.started (%s): %s", st.RunID, c.Describe(f))
		}
		must.Equal("run.tool_started frames before the run's terminal frame", countType(fs, lmp.TypeRunToolStarted), 2)
		must.Equal("run.tool_finished frames before the run's terminal frame", countType(fs, lmp.TypeRunToolFinished), 2)
		must.Equal("run.delta frames of the second model call before the run's terminal frame", countType(fs, lmp.TypeRunDelta), 1)
		last := fs[len(fs)-1]
		must.Equal("terminal frame of a turn that completed", last.Type, lmp.TypeRunCompleted)
		must.Equal("run.completed status", must.Decode[lmp.RunCompleted](last).Status, lmp.RunStatusCompleted)
		for _, f := range afterMarker(ctx, c) {
			must.That(lmp.Deref(f.RunID) != st.RunID, "a frame after the run's terminal frame: %s", c.Describe(f))
		}
	}, conformance.NeedsDriver)

	specs.It("H-1", rules.SHOULD, "the run of a turn ends when the turn ends, with the text of its final reply (note 17)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.end(ctx, "", nil) // a call that asks for a tool
		t.tool(ctx, false, "terminal", "call_ls")
		t.tool(ctx, true, "terminal", "call_ls")
		t.answer(ctx, 2, "Two files.")
		fs := runFramesOf(ctx, c, t.task)
		last := fs[len(fs)-1]
		must.Equal("terminal frame of a turn that completed", last.Type, lmp.TypeRunCompleted)
		done := must.Decode[lmp.RunCompleted](last)
		var soft must.Soft
		soft.Equal("run.completed text (the turn's final text, not its first call's)", done.Text, "Two files.")
		soft.Equal("run.completed status", done.Status, lmp.RunStatusCompleted)
		soft.Equal("run.tool_finished frames before the run's terminal frame", countType(fs, lmp.TypeRunToolFinished), 1)
		soft.Done()
	}, conformance.NeedsDriver)

	// SHOULD, not MUST: lmp-v1.md §4 sends run.failed from on_stream_end
	// when its error is non-empty, and Hermes ends every model call with
	// on_stream_end, a failed one that it retries included. An adapter
	// that reads the table literally fails the run at that call; not
	// failing a run whose call is retried is note 17's preferred answer.
	specs.It("F-4", rules.SHOULD, "a model call that fails and is retried in the same turn does not fail the run (note 17)", func(ctx ginkgo.SpecContext) {
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
		must.That(last.Type == lmp.TypeRunCompleted, "terminal frame of a turn whose failed call was retried: want run.completed, got %s", c.Describe(last))
		var soft must.Soft
		soft.Equal("run.completed status of a turn that completed", must.Decode[lmp.RunCompleted](last).Status, lmp.RunStatusCompleted)
		soft.Equal("run.started frames of the turn", countType(fs, lmp.TypeRunStarted), 1)
		soft.Done()
	}, conformance.NeedsDriver)

	// on_stream_end is over 16 KiB, and Hermes drops it whole.
	specs.It("H-1", rules.MUST, "a run whose on_stream_end never arrives ends with the turn's final reply through send()", func(ctx ginkgo.SpecContext) {
		endsWithoutStreamEnd(ctx, "A long answer", func(t turn) { t.complete(ctx, "A long answer") })
	}, conformance.NeedsDriver)

	specs.It("H-1", rules.SHOULD, "a run without on_stream_end still ends at on_session_end, with no final reply (note 17)", func(ctx ginkgo.SpecContext) {
		endsWithoutStreamEnd(ctx, "partial", func(t turn) { t.sessionEnd(ctx, true, false) })
	}, conformance.NeedsDriver)

	// MUST: §2 makes run_id the ID of one agent turn, and H-1 maps
	// run.started to on_stream_start, which Hermes fires once per model
	// call: a turn of several calls is still one run (note 17 prefers the
	// first stream hook of the turn as its start, the only one that keeps
	// one run.started per run). In band, so that any server's tool turn
	// shows it.
	specs.It("H-1", rules.MUST, "a turn of several model calls is one run: one run.started, one run_id, nothing after its end", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		_, task := sendTrigger(ctx, c, lmp.SessionSend{Text: conformance.Events(ctx).Text(conformance.TriggerToolRun, 0)})
		fs := runFramesOf(ctx, c, task)
		must.Equal("type of the turn's first frame", fs[0].Type, lmp.TypeRunStarted)
		must.Equal("run.started frames of the turn", countType(fs, lmp.TypeRunStarted), 1)
		st := must.Decode[lmp.RunStarted](fs[0])
		for _, f := range fs {
			must.That(lmp.Deref(f.RunID) == st.RunID, "a frame of the turn names another run than its run.started (%s): %s", st.RunID, c.Describe(f))
		}
		if countType(fs, lmp.TypeRunToolStarted) == 0 {
			ginkgo.AddReportEntry("tool_run", fmt.Sprintf("the turn showed no tool call (%d run frames): it may have been a single model call", len(fs)))
		}
		// A marker in the same task: the run's frames were all sent before it.
		oneNotification(ctx, c, &task)
		end := fs[len(fs)-1]
		for _, f := range pendingIn(c, task, match.Run(st.RunID)) {
			must.That(f.Seq < end.Seq, "a frame of the run after its terminal frame (seq %d): %s", end.Seq, c.Describe(f))
		}
	}, conformance.NeedsEvents)

	// A chat runs one turn after another: the end of the first is final.
	// The task's next run must not bring a second terminal frame, or any
	// other frame, of the run before it. In band, so that any server's
	// reply runs show it.
	specs.It("H-1", rules.MUST, "the next run of a task brings no frame of its ended run: a run's terminal frame stays its last", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		first := replyRun(ctx, c)
		task := first.TaskID
		next := nextReplyRun(ctx, c, task)
		must.That(next.RunID != first.RunID, "the task's second reply run started as its first run %s", first.RunID)
		must.Expect(ctx, c, match.Run(next.RunID).And(match.Terminal()))
		// A marker in the same task: the frames of both runs were sent before it.
		oneNotification(ctx, c, &task)
		for _, f := range pendingIn(c, task, match.Run(first.RunID)) {
			must.That(false, "run %s ended before the task's next run %s, and then sent %s", first.RunID, next.RunID, c.Describe(f))
		}
	}, conformance.NeedsEvents)

	// Hermes' stream hooks run off the agent thread and on_session_end on
	// it (hermes.md): a delta or a call's end may reach the adapter after
	// the turn ended. Whatever a server makes of it, a frame of the run
	// after its terminal frame contradicts that end.
	specs.It("H-1", rules.MUST, "stream hooks arriving after their turn ended send nothing: the run's terminal frame stays its last", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		t.delta(ctx, "On time.", lmp.DeltaKindText)
		t.end(ctx, "On time.", nil)
		t.complete(ctx, "On time.")
		end := must.Expect(ctx, c, match.Task(t.task).And(match.Terminal()))
		run := lmp.Deref(end.RunID)
		t.delta(ctx, "Too late.", lmp.DeltaKindText)
		t.hook(ctx, "on_interim_message", map[string]any{"text": "too late", "already_streamed": false})
		t.end(ctx, "Too late.", nil)
		for _, f := range afterMarker(ctx, c) {
			must.That(lmp.Deref(f.RunID) != run || f.Seq < end.Seq, "a hook that came after run %s ended brought %s", run, c.Describe(f))
		}
	}, conformance.NeedsDriver)

	specs.It("H-1", rules.SHOULD, "turns of another platform and of subagents are not shown to phones (note 19)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		own := newTurn(ctx, c)
		marker := should.NewID("foreign text ")
		foreign := []turn{
			{task: should.NewID("tg_chat_"), session: should.NewID("20261201_101500_"), id: should.NewID("turn_tg_"),
				surface: "telegram", message: "hi", first: true},
			// A subagent of the device's turn: its own session and task id.
			{task: own.task, session: should.NewID("20261201_101501_"), id: should.NewID("turn_sub_"), sender: own.sender,
				hermesTask: should.NewID("subagent_"), message: "hi", first: true},
		}
		for _, f := range foreign {
			f.start(ctx)
			f.delta(ctx, marker, lmp.DeltaKindText)
			f.end(ctx, marker, nil)
			f.sessionEnd(ctx, true, false)
		}
		var soft must.Soft
		for _, f := range afterMarker(ctx, c) {
			if strings.HasPrefix(f.Type, "run.") {
				soft.That(!strings.Contains(string(f.Payload), marker), "a foreign turn's text reached the phone: %s", c.Describe(f))
				for i, ft := range foreign {
					soft.That(!strings.Contains(string(f.Payload), ft.session), "the %s turn (session %s) reached the phone: %s", []string{"telegram", "subagent"}[i], ft.session, c.Describe(f))
				}
			}
		}
		soft.Done()
	}, conformance.NeedsDriver)

	specs.It("H-3", rules.SHOULD, "an approval asked inside a tool turn belongs to the turn's run (approval.required.run_id)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunStarted))))
		t.end(ctx, "", nil)
		t.tool(ctx, false, "terminal", "call_rm")
		res, err := drv(ctx).Approval(ctx, driver.ApprovalRequest{TaskID: t.task, TurnID: t.id, ToolCallID: "call_rm",
			Command: "rm -rf ./build", Description: "recursive delete"})
		must.Succeed(err)
		req := must.Decode[lmp.ApprovalRequired](must.Expect(ctx, c, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID))))
		// Both are preferred answers, checked softly: the run_id that of the
		// turn's run (a run is a turn, note 17), the task_id the chat's
		// (note 18). The run id's form is the adapter's own: only its
		// equality with run.started's is checked.
		var soft must.Soft
		soft.Equal("approval.required run_id of an approval inside the turn (its run.started's)", lmp.Deref(req.RunID), st.RunID)
		soft.Equal("approval.required task_id (the chat's task, note 18)", lmp.Deref(req.TaskID), t.task)
		must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceOnce})
		must.Expect(ctx, c, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ApprovalID)))
		t.tool(ctx, true, "terminal", "call_rm")
		t.hookIn(ctx, 2, "on_stream_start", nil)
		t.endCall(ctx, 2, "Deleted.", nil)
		t.complete(ctx, "Deleted.")
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
		soft.Done()
	}, conformance.NeedsDriver)

	specs.It("E-1", rules.SHOULD, "after /new starts a new Hermes session, the chat's runs keep its task_id (note 18)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		first := askForTurn(ctx, c, "hello "+should.NewID(""))
		takeRun(ctx, c, first.RunID)
		for _, text := range []string{"/new", "hello again " + should.NewID("")} {
			must.Request(ctx, c, lmp.SessionSend{TaskID: &first.TaskID, Text: text})
		}
		// The device asked in no other chat: the next run is the chat's.
		next := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Type(lmp.TypeRunStarted)))
		var soft must.Soft
		soft.Equal("task_id of the chat's run after /new", next.TaskID, first.TaskID)
		soft.That(next.SessionID != first.SessionID, "after /new the chat's run.started still names Hermes session %s", first.SessionID)
		takeRun(ctx, c, next.RunID)
		soft.Done()
	}, conformance.NeedsDriver)

	specs.It("H-4", rules.SHOULD, "a turn's final reply through send() completes its run and is not also a notification (note 20)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		reply := should.NewID("The answer is ")
		t.start(ctx)
		t.delta(ctx, reply, lmp.DeltaKindText)
		t.end(ctx, reply, nil)
		t.complete(ctx, reply)
		must.Expect(ctx, c, match.Task(t.task).And(match.Terminal()))
		var soft must.Soft
		for _, f := range afterMarker(ctx, c) {
			if f.Type == lmp.TypeNotification {
				soft.That(must.Decode[lmp.Notification](f).Text != reply, "the final reply came again as a notification: %s", c.Describe(f))
			}
		}
		soft.Done()
	}, conformance.NeedsDriver)
})
