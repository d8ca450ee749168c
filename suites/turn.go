package suites

import (
	"cmp"
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// A Hermes turn played through the driver API, hook by hook.

// turn is one agent turn, driven by plugin hooks exactly as Hermes fires
// them (hermes.md): pre_llm_call once, stream hooks per model call, tool
// hooks, on_session_end at the end, and the final reply through send().
// It is the one way the suites play a turn: newTurn's runs in a chat of
// the device, in the Hermes session a real turn of that chat ran in, so
// that any adapter knows the turn as the chat's; a spec that plays
// another kind of turn (another platform's, a subagent's, one in a
// session it seeded) sets the fields itself.
type turn struct {
	// task is the Loomi chat the final reply goes to; session and id are
	// the Hermes session and turn_id of the hooks.
	task, session, id string
	// sender is pre_llm_call's sender_id: the device whose message the
	// turn answers ("" for none).
	sender string
	// surface is the platform the turn runs on: "" for Loomi.
	surface string
	// hermesTask is the task_id of pre_llm_call and on_session_end: ""
	// for a gateway turn, whose task_id is its session (a subagent has
	// its own).
	hermesTask string
	// message is pre_llm_call's user_message: "" for "go on".
	message string
	// first is pre_llm_call's is_first_turn.
	first bool
	// parent is pre_llm_call's parent_session_id: a subagent's parent
	// session, "" otherwise.
	parent string
}

// platform is the platform the turn's hooks name.
func (t turn) platform() string { return cmp.Or(t.surface, platform) }

// taskID is the task_id Hermes gives the turn's pre_llm_call and
// on_session_end.
func (t turn) taskID() string { return cmp.Or(t.hermesTask, t.session) }

// platform is the Loomi platform's name in Hermes: the surface and
// platform of its turns' hooks.
const platform = hermes.Platform

// newTurn opens a chat from device c the way a phone does (session.send,
// which Hermes answers with a turn of its own) and returns the next turn
// in that chat's Hermes session, whose hooks the spec fires. The frames
// of the opening turn are taken from c.
func newTurn(ctx context.Context, c *conformance.Conn) turn {
	ginkgo.GinkgoHelper()
	st := askForTurn(ctx, c, "hello "+should.NewID(""))
	must.That(st.SessionID != "", "run.started of the chat's first turn names no session_id")
	takeRun(ctx, c, st.RunID)
	return turn{task: st.TaskID, session: st.SessionID, id: should.NewID("turn_"), sender: c.Device.ID}
}

// askForTurn sends text into a new task from device c and returns the
// run.started of the turn Hermes runs for it. The new task is the one the
// reply to the request names, or else the task of the next run.started.
func askForTurn(ctx context.Context, c *conformance.Conn, text string) lmp.RunStarted {
	ginkgo.GinkgoHelper()
	reply := must.Request(ctx, c, lmp.SessionSend{Text: text})
	m := match.Type(lmp.TypeRunStarted)
	if task := lmp.Deref(reply.TaskID); task != "" {
		m = m.And(match.Task(task))
	}
	return must.Decode[lmp.RunStarted](must.Expect(ctx, c, m))
}

// takeRun takes the frames of run from c, up to its terminal frame.
func takeRun(ctx context.Context, c *conformance.Conn, run string) {
	ginkgo.GinkgoHelper()
	must.Expect(ctx, c, match.Run(run).And(match.Terminal()))
	for _, f := range c.Pending() {
		if lmp.Deref(f.RunID) == run {
			must.Expect(ctx, c, match.Run(run))
		}
	}
}

// hook fires a plugin hook for the turn, with the stream-hook base kwargs.
func (t turn) hook(ctx context.Context, name string, kw map[string]any) {
	ginkgo.GinkgoHelper()
	t.hookIn(ctx, 1, name, kw)
}

// hookIn fires a stream hook of model call (iteration) it.
func (t turn) hookIn(ctx context.Context, it int, name string, kw map[string]any) {
	ginkgo.GinkgoHelper()
	base := hermes.Encode(hermes.OnStreamStart{StreamBase: hermes.StreamBase{
		TurnID: t.id, Iteration: it, SessionID: t.session,
		Model: "mock-model", Provider: "mock", Surface: t.platform(),
	}})
	fire(ctx, name, base, kw)
}

// fireArgs fires a hook from its typed kwargs (package hermes builds them
// as Hermes does), with kw laid over them.
func fireArgs(ctx context.Context, a hermes.Args, kw map[string]any) {
	ginkgo.GinkgoHelper()
	fire(ctx, a.HookName(), hermes.Encode(a), kw)
}

func fire(ctx context.Context, name string, base, kw map[string]any) {
	ginkgo.GinkgoHelper()
	for k, v := range kw {
		base[k] = v
	}
	must.Succeed(drv(ctx).Hook(ctx, driver.HookRequest{Name: name, Kwargs: base}), "hook %s", name)
}

// begin is pre_llm_call, fired once per turn before its first model call.
func (t turn) begin(ctx context.Context) {
	ginkgo.GinkgoHelper()
	fireArgs(ctx, hermes.PreLLMCall{
		SessionID: t.session, TaskID: t.taskID(), TurnID: t.id, UserMessage: cmp.Or(t.message, "go on"),
		IsFirstTurn: t.first, Model: "mock-model", Platform: t.platform(), SenderID: t.sender, ParentSessionID: t.parent,
	}, nil)
}

// start begins the turn and its first model call.
func (t turn) start(ctx context.Context) {
	ginkgo.GinkgoHelper()
	t.begin(ctx)
	t.hook(ctx, "on_stream_start", nil)
}

func (t turn) delta(ctx context.Context, text, kind string) {
	ginkgo.GinkgoHelper()
	t.hook(ctx, "on_stream_delta", map[string]any{"delta": text, "kind": kind})
}

// end is on_stream_end of model call 1: finished after a success, also
// one that asks for tools; finished=false with the error after a failure.
func (t turn) end(ctx context.Context, final string, errText any) {
	ginkgo.GinkgoHelper()
	t.endCall(ctx, 1, final, errText)
}

func (t turn) endCall(ctx context.Context, it int, final string, errText any) {
	ginkgo.GinkgoHelper()
	if errText != nil {
		final = ""
	}
	t.hookIn(ctx, it, "on_stream_end", map[string]any{"final_text": final, "finished": errText == nil, "error": errText})
}

func (t turn) tool(ctx context.Context, post bool, name, callID string) {
	ginkgo.GinkgoHelper()
	t.toolStatus(ctx, post, name, callID, "ok")
}

func (t turn) toolStatus(ctx context.Context, post bool, name, callID, status string) {
	ginkgo.GinkgoHelper()
	call := hermes.ToolCall{ToolName: name, Args: map[string]any{"path": "x"}, ToolCallID: callID,
		TaskID: t.taskID(), SessionID: t.session, TurnID: t.id, APIRequestID: "req"}
	if !post {
		fireArgs(ctx, hermes.PreToolCall{ToolCall: call}, nil)
		return
	}
	fireArgs(ctx, hermes.PostToolCall{ToolCall: call, Result: "ok", DurationMS: 1500, Status: status}, nil)
}

// sessionEnd is on_session_end, fired at the end of every turn.
func (t turn) sessionEnd(ctx context.Context, completed, interrupted bool) {
	ginkgo.GinkgoHelper()
	reason := "text_response(stop)"
	switch {
	case interrupted:
		reason = "interrupted_by_user"
	case !completed:
		reason = "error"
	}
	t.sessionEndFor(ctx, completed, interrupted, reason)
}

// sessionEndFor is on_session_end with Hermes' turn_exit_reason: a turn
// that neither completed nor was interrupted failed.
func (t turn) sessionEndFor(ctx context.Context, completed, interrupted bool, reason string) {
	ginkgo.GinkgoHelper()
	fireArgs(ctx, hermes.OnSessionEnd{
		SessionID: t.session, TaskID: t.taskID(), TurnID: t.id,
		Completed: completed, Failed: !completed && !interrupted, Interrupted: interrupted,
		TurnExitReason: reason, Model: "mock-model", Platform: t.platform(),
	}, nil)
}

// reply is the gateway's delivery of the turn's final reply through the
// adapter's send(), with metadata notify=true.
func (t turn) reply(ctx context.Context, text string) {
	ginkgo.GinkgoHelper()
	res, err := drv(ctx).Send(ctx, driver.SendRequest{ChatID: t.task, Content: text, Metadata: map[string]any{"notify": true}})
	must.Succeed(err, "driver send of the final reply")
	must.That(res.Success, "the adapter's send() of the final reply: want success, got %s", sendFailure(res))
}

// sendFailure renders a failed send() result in one line.
func sendFailure(res driver.SendResponse) string {
	return fmt.Sprintf("success false, error %q, retryable %t", res.Error, res.Retryable)
}

// answer is the turn's last model call, iteration it, which streams text
// and asks for no tools, and the turn's successful end.
func (t turn) answer(ctx context.Context, it int, text string) {
	ginkgo.GinkgoHelper()
	t.hookIn(ctx, it, "on_stream_start", nil)
	t.hookIn(ctx, it, "on_stream_delta", map[string]any{"delta": text, "kind": lmp.DeltaKindText})
	t.endCall(ctx, it, text, nil)
	t.complete(ctx, text)
}

// complete ends a turn that succeeded: on_session_end, then the final reply.
func (t turn) complete(ctx context.Context, text string) {
	ginkgo.GinkgoHelper()
	t.sessionEnd(ctx, true, false)
	t.reply(ctx, text)
}

// stopCommand is the gateway's stop message, which run.cancel is (F-6).
const stopCommand = hermes.StopCommand

// toolTurn plays a turn with two calls of one tool in one iteration,
// finished in the reverse order, and returns the run.tool_started frames
// by call_id and the run.tool_finished frames in arrival order.
func toolTurn(ctx ginkgo.SpecContext) (map[string]lmp.RunToolStarted, []lmp.RunToolFinished) {
	ginkgo.GinkgoHelper()
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
	ginkgo.GinkgoHelper()
	var task string
	if conformance.Events(ctx).Source() == conformance.SourceDriver {
		t := newTurn(ctx, c)
		t.start(ctx)
		t.end(ctx, "", "boom")
		t.sessionEnd(ctx, false, false) // not retried: the turn failed
		t.delta(ctx, "late", lmp.DeltaKindText)
		t.end(ctx, "late", nil)
		task = t.task
	} else {
		r, err := conformance.Events(ctx).FailingRun(ctx, c)
		must.Succeed(err, "start a failing run")
		task = r.Task
	}
	failed := must.Expect(ctx, c, match.Task(task).And(match.Type(lmp.TypeRunFailed)))
	if conformance.Events(ctx).Source() == conformance.SourceDriver {
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

// endsWithoutStreamEnd plays a turn whose single model call streams text
// and never gets its on_stream_end, ends it with finish, and checks that
// its run ends with run.completed.
func endsWithoutStreamEnd(ctx ginkgo.SpecContext, text string, finish func(turn)) {
	ginkgo.GinkgoHelper()
	c := must.Pair(ctx, "device")
	t := newTurn(ctx, c)
	t.start(ctx)
	t.delta(ctx, text, lmp.DeltaKindText)
	finish(t)
	last := must.Expect(ctx, c, match.Task(t.task).And(match.Terminal()))
	must.Equal("terminal frame of a turn that completed", last.Type, lmp.TypeRunCompleted)
}
