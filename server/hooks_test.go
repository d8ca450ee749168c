package server_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

func hook(e *env, name string, kw map[string]any) {
	e.hermes.adapter.Hook(context.Background(), name, kw)
}

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// hermesTurn fires the hooks of one Hermes turn exactly as hermes.md
// describes them: stream hooks per model call with the stream base
// kwargs, tool hooks with tool_call_id, and the turn's end.
type hermesTurn struct {
	e                   *env
	turn, session, chat string
	surface, platform   string
	task                string // task_id kwarg: the session id in gateway turns
	sender, message     string
}

// chatTurn starts a turn the way a phone does: session.send into chat
// (a new one when empty), which the gateway takes through handle_message
// and runs in Hermes session, announced by pre_llm_call.
func chatTurn(t *testing.T, e *env, c *client.Conn, dev client.Device, chat, session, turn string) hermesTurn {
	t.Helper()
	text := "question " + turn
	rid := "rq-" + turn
	send := lmp.SessionSend{Text: text, RequestID: rid}
	if chat != "" {
		send.TaskID = &chat
	}
	if err := c.Send(ctxT(t), send); err != nil {
		t.Fatal(err)
	}
	_, ack := expectType[lmp.Ack](t, c)
	h := hermesTurn{e: e, turn: turn, session: session, chat: lmp.Deref(ack.TaskID), surface: hermes.Platform,
		platform: hermes.Platform, task: session, sender: dev.ID, message: text}
	h.preLLMCall()
	return h
}

// newChatTurn starts a server with mutate applied to its config, pairs a
// phone with it and starts a turn in a new chat from that phone.
func newChatTurn(t *testing.T, session, turn string, mutate ...func(*server.Config)) (*env, *client.Conn, hermesTurn) {
	t.Helper()
	e := newEnv(t, mutate...)
	c, dev := e.pair()
	return e, c, chatTurn(t, e, c, dev, "", session, turn)
}

// foreignTurn is a turn the adapter did not start.
func foreignTurn(e *env, session, turn, surface string) hermesTurn {
	return hermesTurn{e: e, turn: turn, session: session, surface: surface, platform: surface, task: session, message: "hi"}
}

func (h hermesTurn) base(it int) map[string]any {
	return map[string]any{"turn_id": h.turn, "iteration": float64(it), "session_id": h.session, "model": "m", "provider": "p",
		"surface": h.surface, "telemetry_schema_version": "hermes.observer.v1"}
}

func (h hermesTurn) preLLMCall() {
	hook(h.e, "pre_llm_call", map[string]any{"session_id": h.session, "task_id": h.task, "turn_id": h.turn,
		"user_message": h.message, "conversation_history": []any{}, "is_first_turn": true, "model": "m",
		"platform": h.platform, "sender_id": h.sender})
}

func (h hermesTurn) start(it int) { hook(h.e, "on_stream_start", h.base(it)) }

func (h hermesTurn) delta(it int, text string) {
	hook(h.e, "on_stream_delta", with(h.base(it), "delta", text, "kind", "text"))
}

// end is on_stream_end of one model call: finished=true, error=None after
// a successful call (also one that asks for tools); finished=false,
// final_text="" and the error after a failed one.
func (h hermesTurn) end(it int, finalText string, errText any) {
	hook(h.e, "on_stream_end", with(h.base(it), "final_text", finalText, "finished", errText == nil, "error", errText))
}

func (h hermesTurn) toolKwargs(name, callID string) map[string]any {
	return map[string]any{"tool_name": name, "args": map[string]any{"command": "ls"}, "task_id": h.task, "session_id": h.session,
		"tool_call_id": callID, "turn_id": h.turn, "api_request_id": "req_1", "middleware_trace": []any{}}
}

func (h hermesTurn) preTool(name, callID string) {
	hook(h.e, "pre_tool_call", h.toolKwargs(name, callID))
}

func (h hermesTurn) postTool(name, callID, status string, ms int) {
	hook(h.e, "post_tool_call", with(h.toolKwargs(name, callID), "result", "out", "duration_ms", float64(ms), "status", status,
		"error_type", nil, "error_message", nil))
}

// answer is a turn of one successful model call that ends with text.
func (h hermesTurn) answer(text string) {
	h.start(1)
	h.end(1, text, nil)
	h.sessionEnd(true, false)
}

// sessionEnd is on_session_end, fired at the end of every turn.
func (h hermesTurn) sessionEnd(completed, interrupted bool) {
	hook(h.e, "on_session_end", map[string]any{"session_id": h.session, "task_id": h.task, "turn_id": h.turn,
		"completed": completed, "interrupted": interrupted, "model": "m", "platform": h.platform})
}

// reply is the gateway's delivery of the turn's final reply through send().
func (h hermesTurn) reply(text string) hermes.SendResult {
	return h.e.srv.Send(context.Background(), h.chat, text, map[string]any{"notify": true})
}

// runFrames reads the frames of run up to and including its terminal one.
func runFrames(t *testing.T, c *client.Conn, run string) []client.Frame {
	t.Helper()
	var out []client.Frame
	for {
		f, err := c.Expect(ctxT(t), func(f client.Frame) bool { return lmp.Deref(f.RunID) == run })
		if err != nil {
			t.Fatalf("after %v: %v", typeList(out), err)
		}
		out = append(out, f)
		if f.Type == lmp.TypeRunCompleted || f.Type == lmp.TypeRunFailed {
			return out
		}
	}
}

func typeList(fs []client.Frame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Type)
	}
	return out
}

// quiet proves that nothing more came for run (or, with run "", at all):
// a marker notification sent last arrives after everything sent before it.
func quiet(t *testing.T, e *env, c *client.Conn, run string) {
	t.Helper()
	marker := fmt.Sprintf("marker %d", time.Now().UnixNano())
	e.srv.Send(context.Background(), "task_marker", marker, nil)
	if _, err := c.Expect(ctxT(t), func(f client.Frame) bool {
		return f.Type == lmp.TypeNotification && strings.Contains(string(f.Payload), marker)
	}); err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Pending() {
		if run == "" || lmp.Deref(f.RunID) == run {
			t.Fatalf("unexpected frame: %s", f.Raw)
		}
	}
}

func wantTypes(t *testing.T, fs []client.Frame, want ...string) {
	t.Helper()
	if got := typeList(fs); !slices.Equal(got, want) {
		t.Fatalf("frames %v, want %v", got, want)
	}
}

// A turn that uses tools: on_stream_end(finished=true) after the first
// call, which asks for tools, ends nothing; the turn's two calls, its tools
// and its final reply are one run (note 17).
func TestToolTurnIsOneRun(t *testing.T) { // H-1, H-2, F-3, note 17
	e, c, h := newChatTurn(t, "20261201_101500_ab12cd34", "t1")
	h.start(1)
	h.end(1, "", nil) // the call asks for two tools, run in parallel
	h.preTool("terminal", "call_a")
	h.preTool("terminal", "call_b")
	h.postTool("terminal", "call_b", "error", 1500)
	h.postTool("terminal", "call_a", "ok", 250)
	h.start(2)
	hook(e, "on_interim_message", with(h.base(2), "text", "looking", "already_streamed", false))
	h.delta(2, "Hel")
	h.delta(2, "lo")
	h.end(2, "Hello", nil)
	h.sessionEnd(true, false)
	if r := h.reply("Hello, world"); !r.Success {
		t.Fatalf("send() = %+v", r)
	}

	fs := runFrames(t, c, "run_t1")
	wantTypes(t, fs, "run.started", "run.tool_started", "run.tool_started", "run.tool_finished", "run.tool_finished",
		"run.interim", "run.delta", "run.delta", "run.completed")
	for _, f := range fs {
		if lmp.Deref(f.TaskID) != h.chat {
			t.Fatalf("frame of task %q, want the chat %q: %s", lmp.Deref(f.TaskID), h.chat, f.Raw)
		}
	}
	st := decode[lmp.RunStarted](t, fs[0])
	if st.TaskID != h.chat || st.SessionID != h.session || st.Surface != "loomi" || st.Model != "m" {
		t.Fatalf("run.started %+v", st)
	}
	a, b := decode[lmp.RunToolStarted](t, fs[1]), decode[lmp.RunToolStarted](t, fs[2])
	if a.CallID != "call_a" || a.Index != 0 || b.Index != 1 || a.Iteration != 1 || a.Preview != `{"command":"ls"}` {
		t.Fatalf("tool starts %+v %+v", a, b)
	}
	fb, fa := decode[lmp.RunToolFinished](t, fs[3]), decode[lmp.RunToolFinished](t, fs[4])
	if fb.CallID != "call_b" || fb.Index != 1 || fb.OK || fb.Duration != 1.5 || fa.Index != 0 || !fa.OK || fa.Duration != 0.25 {
		t.Fatalf("tool finishes %+v %+v", fb, fa)
	}
	if d := decode[lmp.RunDelta](t, fs[6]); d.Iteration != 2 || d.Kind != "text" {
		t.Fatalf("delta %+v", d)
	}
	done := decode[lmp.RunCompleted](t, fs[8])
	if done.Status != "completed" || done.Text != "Hello, world" || !done.Finished || done.Error != nil {
		t.Fatalf("completed %+v", done)
	}
	quiet(t, e, c, "")
}

// An errored model call that Hermes retries in the same turn is not a
// failure; one it does not retry fails the run, once (notes 6, 17).
func TestRetriedErrorIsNotAFailure(t *testing.T) { // F-4, note 17
	e := newEnv(t)
	c, dev := e.pair()
	h := chatTurn(t, e, c, dev, "", "s_retry", "t_retry")
	h.start(1)
	h.end(1, "", "overloaded")
	h.start(1) // the retry
	h.delta(1, "fine")
	h.end(1, "fine", nil)
	h.sessionEnd(true, false)
	h.reply("fine")
	fs := runFrames(t, c, "run_t_retry")
	wantTypes(t, fs, "run.started", "run.delta", "run.completed")

	f := chatTurn(t, e, c, dev, h.chat, "s_retry", "t_fail")
	f.start(1)
	f.end(1, "", "overloaded")
	f.sessionEnd(false, false)
	f.delta(1, "late") // after the end: dropped
	fs = runFrames(t, c, "run_t_fail")
	wantTypes(t, fs, "run.started", "run.failed")
	if r := decode[lmp.RunFailed](t, fs[1]); r.Error != "overloaded" || r.Status != "failed" {
		t.Fatalf("run.failed %+v", r)
	}
	quiet(t, e, c, "run_t_fail")
}

// Hermes drops a stream-hook payload over 16 KiB whole: a turn whose
// on_stream_start and on_stream_end were dropped still starts and ends,
// with on_session_end; without a final reply it completes with the text
// it streamed once FinalReplyWait has passed (note 17).
func TestDroppedStreamEndStillEnds(t *testing.T) { // H-1, note 17
	e := newEnv(t, func(c *server.Config) { c.FinalReplyWait = 50 * time.Millisecond })
	c, dev := e.pair()
	h := chatTurn(t, e, c, dev, "", "s_drop", "t_drop")
	h.delta(1, "partial ") // on_stream_start dropped
	h.delta(1, "answer")   // on_stream_end dropped
	h.sessionEnd(true, false)
	fs := runFrames(t, c, "run_t_drop")
	wantTypes(t, fs, "run.started", "run.delta", "run.delta", "run.completed")
	if done := decode[lmp.RunCompleted](t, fs[3]); done.Text != "partial answer" || done.Status != "completed" {
		t.Fatalf("completed %+v", done)
	}
	// The final reply that comes after all is a duplicate, not a notification.
	h.reply("partial answer")
	quiet(t, e, c, "")

	// No stream hook at all: on_session_end alone gives a started/ended pair.
	g := chatTurn(t, e, c, dev, h.chat, "s_drop", "t_none")
	g.sessionEnd(false, true)
	fs = runFrames(t, c, "run_t_none")
	wantTypes(t, fs, "run.started", "run.completed")
	if done := decode[lmp.RunCompleted](t, fs[1]); done.Status != "cancelled" {
		t.Fatalf("interrupted turn: %+v", done)
	}
}

// Hooks are process-wide: a Telegram turn, a subagent of a Loomi turn and
// a Loomi session the adapter never messaged are never shown (note 19).
func TestOtherPlatformsAndSubagentsAreNotShown(t *testing.T) { // note 19
	e := newEnv(t)
	c, dev := e.pair()
	tg := foreignTurn(e, "s_tg", "t_tg", "telegram")
	tg.preLLMCall()
	tg.start(1)
	tg.delta(1, "telegram text")
	tg.preTool("terminal", "call_tg")
	tg.end(1, "telegram text", nil)
	tg.sessionEnd(true, false)

	parent := chatTurn(t, e, c, dev, "", "s_parent", "t_parent")
	parent.start(1)
	// The subagent runs with its own session and task ids, on the same
	// platform, with the parent's user message text.
	sub := foreignTurn(e, "s_child", "t_child", hermes.Platform)
	sub.task, sub.message, sub.sender = "subagent_1", parent.message, dev.ID
	sub.preLLMCall()
	sub.start(1)
	sub.delta(1, "subagent text")
	sub.end(1, "subagent text", nil)
	sub.sessionEnd(true, false)

	stray := foreignTurn(e, "s_unknown", "t_stray", hermes.Platform)
	stray.start(1)
	stray.delta(1, "stray")

	// A hook naming telegram in a session of the adapter's own is not its.
	hook(e, "on_stream_delta", with(parent.base(1), "surface", "telegram", "delta", "x", "kind", "text"))

	parent.end(1, "done", nil)
	parent.sessionEnd(true, false)
	parent.reply("done")
	wantTypes(t, runFrames(t, c, "run_t_parent"), "run.started", "run.completed")
	quiet(t, e, c, "")
}

// An approval inside a tool turn belongs to its run through the approval
// hooks' turn_id; its deadline comes from the configured timeout. One
// still waiting when the turn ends is settled before the run's end.
func TestApprovalBelongsToItsRun(t *testing.T) { // H-3, note 15, note 18
	const timeout = 90 * time.Second
	e, c, h := newChatTurn(t, "s_apr", "t_apr", func(c *server.Config) { c.ApprovalTimeout = timeout })
	h.start(1)
	h.end(1, "", nil)
	h.preTool("terminal", "call_rm")
	key := hermes.SessionKeyPrefix + h.chat
	approvalHook := func(name string, kv ...any) {
		hook(e, name, with(map[string]any{"command": "rm -rf build", "description": "recursive delete", "pattern_key": "rm",
			"pattern_keys": []any{"rm"}, "session_key": key, "surface": "gateway", "turn_id": h.turn,
			"tool_call_id": "call_rm", "session_id": h.session}, kv...))
	}
	approvalHook("pre_approval_request")
	before := time.Now()
	if err := e.srv.SendExecApprovalPrompt(context.Background(), hermes.ExecApprovalPrompt{
		ChatID: h.chat, Command: "rm -rf build", SessionKey: key, Description: "recursive delete",
		AllowPermanent: false, AllowSession: true, RequestID: "req_rm",
	}); err != nil {
		t.Fatal(err)
	}
	f, req := expectType[lmp.ApprovalRequired](t, c)
	if lmp.Deref(req.RunID) != "run_t_apr" || lmp.Deref(f.RunID) != "run_t_apr" || lmp.Deref(req.TaskID) != h.chat || req.ApprovalID != "req_rm" {
		t.Fatalf("approval.required %s", f.Raw)
	}
	if d := time.Unix(0, int64(req.DeadlineTS*1e9)).Sub(before); d < timeout-time.Second || d > timeout+time.Second {
		t.Fatalf("deadline_ts is %v after the prompt, want %v", d, timeout)
	}
	var choices []string
	for _, ch := range req.Choices {
		choices = append(choices, ch.Choice)
	}
	if !slices.Equal(choices, []string{"once", "session", "deny"}) {
		t.Fatalf("choices %v without allow_permanent", choices)
	}
	approvalHook("post_approval_response", "choice", "deny")
	if _, res := expectType[lmp.ApprovalResolved](t, c); res.ApprovalID != "req_rm" || res.Choice != "deny" || res.DecidedBy != "local" {
		t.Fatalf("approval.resolved %+v", res)
	}
	h.postTool("terminal", "call_rm", "error", 5) // denied: a tool error

	// A second approval is still waiting when the turn ends.
	approvalHook("pre_approval_request", "tool_call_id", "call_rm2")
	if err := e.srv.SendExecApprovalPrompt(context.Background(), hermes.ExecApprovalPrompt{
		ChatID: h.chat, Command: "rm -rf build", SessionKey: key, AllowPermanent: true, AllowSession: true, RequestID: "req_rm2",
	}); err != nil {
		t.Fatal(err)
	}
	h.sessionEnd(false, true)
	fs := runFrames(t, c, "run_t_apr")
	// The first approval's frames were taken above.
	wantTypes(t, fs, "run.started", "run.tool_started", "run.tool_finished", "approval.required", "approval.resolved", "run.completed")
	if r := decode[lmp.ApprovalResolved](t, fs[4]); r.ApprovalID != "req_rm2" || r.Choice != "cancelled" || r.DecidedBy != "agent" {
		t.Fatalf("approval cancelled by the turn's end: %+v", r)
	}
	if tf := decode[lmp.RunToolFinished](t, fs[2]); tf.OK {
		t.Fatalf("a denied command's tool call: %+v", tf)
	}
	approvalHook("post_approval_response", "tool_call_id", "call_rm2", "choice", "cancelled", "cancelled", "turn ended")
	quiet(t, e, c, "")
}

// The final reply's send() completes its run and is no notification; other
// sends into the same chat are notifications of the same task (note 20).
func TestFinalReplyIsNotANotification(t *testing.T) { // H-4, note 20
	e, c, h := newChatTurn(t, "s_reply", "t_reply")
	h.start(1)
	h.delta(1, "Answer")
	h.end(1, "Answer", nil)
	h.sessionEnd(true, false)
	h.reply("Answer")
	fs := runFrames(t, c, "run_t_reply")
	if done := decode[lmp.RunCompleted](t, fs[len(fs)-1]); done.Text != "Answer" {
		t.Fatalf("completed %+v", done)
	}
	e.srv.Send(context.Background(), h.chat, "Cron job finished\nall good", nil)
	e.srv.Send(context.Background(), h.chat, "Approval required: rm -rf build", map[string]any{"is_approval_prompt": true})
	f, n := expectType[lmp.Notification](t, c)
	if lmp.Deref(f.TaskID) != h.chat || n.Text != "Cron job finished\nall good" || n.Title != "Cron job finished" || n.Category != "result" {
		t.Fatalf("notification %s", f.Raw)
	}
	if _, n := expectType[lmp.Notification](t, c); n.Category != "diagnostic" || n.Title != "Approval required" || !n.RequiresAttention {
		t.Fatalf("approval text fallback %+v", n)
	}
	// A reply with no run to complete is a notification after all.
	e.srv.Send(context.Background(), h.chat, "Good morning", map[string]any{"notify": true})
	if _, n := expectType[lmp.Notification](t, c); n.Text != "Good morning" {
		t.Fatalf("%+v", n)
	}
	quiet(t, e, c, "")
}

// /new rolls the chat over to a new Hermes session: its runs and its
// task.list row keep the chat's task_id (note 18).
func TestNewSessionKeepsTheTask(t *testing.T) { // F-9, note 18
	e := newEnv(t)
	c, dev := e.pair()
	h := chatTurn(t, e, c, dev, "", "s_old", "t_old")
	h.answer("one")
	h.reply("one")
	runFrames(t, c, "run_t_old")

	if err := c.Send(ctxT(t), lmp.SessionSend{TaskID: &h.chat, Text: "/new", RequestID: "rq-new"}); err != nil {
		t.Fatal(err)
	}
	expectType[lmp.Ack](t, c)
	n := chatTurn(t, e, c, dev, h.chat, "s_new", "t_new")
	n.answer("two")
	n.reply("two")
	fs := runFrames(t, c, "run_t_new")
	if st := decode[lmp.RunStarted](t, fs[0]); st.TaskID != h.chat || st.SessionID != "s_new" || lmp.Deref(fs[0].TaskID) != h.chat {
		t.Fatalf("run.started after /new: %s", fs[0].Raw)
	}

	now := time.Now()
	old := now.Add(-time.Hour)
	e.hermes.setSessions(
		hermes.SessionRow{ID: "s_new", Source: "loomi", StartedAt: now, LastActive: now, MessageCount: 2},
		hermes.SessionRow{ID: "s_tg", Source: "telegram", StartedAt: now, LastActive: now},
		hermes.SessionRow{ID: "s_old", Source: "loomi", StartedAt: old, EndedAt: &now, LastActive: old, MessageCount: 2},
	)
	if err := c.Send(ctxT(t), lmp.TaskList{RequestID: "tl"}); err != nil {
		t.Fatal(err)
	}
	_, res := expectType[lmp.TaskListResult](t, c)
	if len(res.Tasks) != 1 {
		t.Fatalf("task.list %+v, want the chat's one row", res.Tasks)
	}
	if r := res.Tasks[0]; r.TaskID != h.chat || r.Status != "live" || r.MessageCount != 4 || r.StartedAt != lmp.Timestamp(old) {
		t.Fatalf("task row %+v", r)
	}
}

// Hooks reordered across hook types: a delta that arrives after its call's
// end, or after on_session_end, still belongs to the open run; a hook after
// the run's end is dropped; a bridge tool's lone post_tool_call is a
// started/finished pair (note 17).
func TestReorderedHooks(t *testing.T) { // F-3, note 6, note 17
	e, c, h := newChatTurn(t, "s_order", "t_order")
	h.start(1)
	h.end(1, "", nil)
	h.delta(1, "late in call 1")
	h.postTool("tool_search", "call_bridge", "ok", 3)
	h.postTool("tool_search", "call_bridge", "ok", 3) // never repeated by Hermes: dropped
	h.start(2)
	h.end(2, "final", nil)
	h.sessionEnd(true, false)
	h.delta(2, "final") // the queue's late delta
	h.reply("final")
	h.delta(2, "after the end")
	h.end(2, "after the end", nil)
	fs := runFrames(t, c, "run_t_order")
	wantTypes(t, fs, "run.started", "run.delta", "run.tool_started", "run.tool_finished", "run.delta", "run.completed")
	ts, tf := decode[lmp.RunToolStarted](t, fs[2]), decode[lmp.RunToolFinished](t, fs[3])
	if ts.CallID != "call_bridge" || tf.CallID != "call_bridge" || ts.Index != tf.Index || ts.Tool != "tool_search" || !tf.OK {
		t.Fatalf("bridge tool %+v %+v", ts, tf)
	}
	quiet(t, e, c, "run_t_order")
}

// A turn whose end never comes ends when the chat's next turn begins, or
// when no hook of it came for RunIdleTimeout (note 17). The idle timeout
// is long enough that neither turn idles out between two hooks the test
// gives back to back, and b's failed call comes before the test waits for
// a's frames: the wait is no gap in b's hooks.
func TestLostTurnsEnd(t *testing.T) { // note 17
	e := newEnv(t, func(c *server.Config) { c.RunIdleTimeout = time.Second })
	c, dev := e.pair()
	a := chatTurn(t, e, c, dev, "", "s_lost", "t_a")
	a.start(1)
	a.delta(1, "half")
	b := chatTurn(t, e, c, dev, a.chat, "s_lost", "t_b")
	b.start(1)
	b.end(1, "", "connection reset")
	fs := runFrames(t, c, "run_t_a")
	wantTypes(t, fs, "run.started", "run.delta", "run.completed")
	if done := decode[lmp.RunCompleted](t, fs[2]); done.Finished || done.Text != "half" || done.Status != "completed" {
		t.Fatalf("superseded run %+v", done)
	}
	fs = runFrames(t, c, "run_t_b")
	wantTypes(t, fs, "run.started", "run.failed")
	if f := decode[lmp.RunFailed](t, fs[1]); f.Error != "connection reset" {
		t.Fatalf("idle run %+v", f)
	}
}

func TestMalformedHooksAreDropped(t *testing.T) {
	e := newEnv(t)
	c, _ := e.pair()
	hook(e, "on_stream_start", map[string]any{"turn_id": 7, "session_id": "s"})
	hook(e, "on_stream_delta", map[string]any{"turn_id": "t", "session_id": "s", "delta": []int{1}})
	hook(e, "post_tool_call", map[string]any{"turn_id": "t", "session_id": "s", "duration_ms": "slow"})
	hook(e, "on_stream_start", map[string]any{})
	hook(e, "pre_llm_call", map[string]any{"platform": "loomi", "turn_id": "t", "session_id": "s", "user_message": 3})
	hook(e, "on_session_end", map[string]any{"turn_id": "t", "session_id": "s", "completed": "yes"})
	hook(e, "pre_approval_request", map[string]any{"session_key": hermes.SessionKeyPrefix + "c", "coalesced": "no"})
	hook(e, "post_approval_response", map[string]any{"session_key": 1})
	hook(e, "agent_loop_stopped", nil)
	hook(e, "no_such_hook", map[string]any{"x": 1})
	e.srv.Send(context.Background(), "", "still alive", map[string]any{"category": 5})
	_, n := expectType[lmp.Notification](t, c)
	if n.Text != "still alive" || n.Category != "result" {
		t.Fatalf("%+v", n)
	}
	if p := c.Pending(); len(p) != 0 {
		t.Fatalf("malformed hook produced %s", p[0].Raw)
	}
}

func TestRunCommands(t *testing.T) { // F-6, F-7
	e, c, h := newChatTurn(t, "s3", "t3")
	h.start(1)
	expectType[lmp.RunStarted](t, c)

	_ = c.Send(ctxT(t), lmp.RunPause{RunID: "run_t3"})
	_, done := expectType[lmp.RunCompleted](t, c)
	if done.Status != lmp.RunStatusCancelled || done.RunID != "run_t3" {
		t.Fatalf("%+v", done)
	}
	calls := e.hermes.callsNamed("handle_message")
	if len(calls) != 2 || calls[1].Args["text"] != hermes.StopCommand || calls[1].Args["chat_id"] != h.chat {
		t.Fatalf("interrupt calls %v", calls)
	}
	h.sessionEnd(false, true) // Hermes' end of the stopped turn: nothing more
	_ = c.Send(ctxT(t), lmp.RunResume{RunID: "run_t3"})
	deadline := time.Now().Add(5 * time.Second)
	for len(e.hermes.callsNamed("handle_message")) == 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling the recorded calls
	}
	hm := e.hermes.callsNamed("handle_message")
	if len(hm) != 3 || hm[2].Args["text"] != "continue" || hm[2].Args["chat_id"] != h.chat {
		t.Fatalf("resume calls %v", hm)
	}
	_ = c.Send(ctxT(t), lmp.RunCancel{RunID: "run_t3"})
	if _, er := expectType[lmp.Error](t, c); er.Code != lmp.CodeUnknownRun || er.Fatal {
		t.Fatalf("cancel of an ended run: %+v", er)
	}
	_ = c.Send(ctxT(t), lmp.RunCancel{RunID: "run_nope"})
	if _, er := expectType[lmp.Error](t, c); er.Code != lmp.CodeUnknownRun {
		t.Fatalf("%+v", er)
	}
	quiet(t, e, c, "run_t3")
}

func TestTaskListAndNotification(t *testing.T) { // F-9, H-4
	e := newEnv(t)
	c, _ := e.pair()
	now := time.Now()
	e.hermes.setSessions(
		hermes.SessionRow{ID: "s_live", Source: "loomi", Title: "Live one", StartedAt: now, LastActive: now, MessageCount: 2, Preview: "hi"},
		hermes.SessionRow{ID: "s_ended", Source: "loomi", StartedAt: now, EndedAt: &now},
	)
	_ = c.Send(ctxT(t), lmp.TaskList{RequestID: "tl", StatusFilter: "ended"})
	_, res := expectType[lmp.TaskListResult](t, c)
	if res.RequestID != "tl" || len(res.Tasks) != 1 || res.Tasks[0].TaskID != "s_ended" || res.Tasks[0].Status != "ended" || res.Tasks[0].EndedAt == nil {
		t.Fatalf("%+v", res)
	}
	_ = c.Send(ctxT(t), lmp.TaskList{RequestID: "tl2", Limit: ptr(1)})
	if _, res := expectType[lmp.TaskListResult](t, c); len(res.Tasks) != 1 || res.Tasks[0].Status != "live" || lmp.Deref(res.Tasks[0].Title) != "Live one" {
		t.Fatalf("%+v", res)
	}
	r := e.srv.Send(context.Background(), "task_9", "cron done", map[string]any{"category": "diagnostic", "title": "Cron", "source": "cron", "requires_attention": true})
	if !r.Success || r.MessageID == "" {
		t.Fatalf("%+v", r)
	}
	f, n := expectType[lmp.Notification](t, c)
	if n != (lmp.Notification{Category: "diagnostic", Title: "Cron", Text: "cron done", Source: "cron", RequiresAttention: true}) || lmp.Deref(f.TaskID) != "task_9" {
		t.Fatalf("%+v", n)
	}
}

// Hermes runs parallel tools on several threads and delivers each stream
// hook from its own worker: hooks of one turn arrive concurrently. Every
// call still gets its own index, pairs with its finish, and the run has
// one start and one end.
func TestConcurrentHooksOfOneTurn(t *testing.T) { // F-3, note 6
	e, c, h := newChatTurn(t, "s_par", "t_par")
	h.start(1)
	h.end(1, "", nil)
	const calls = 16
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(2)
		id := fmt.Sprint("call_", i)
		go func() {
			defer wg.Done()
			h.preTool("terminal", id)
			h.postTool("terminal", id, "ok", i)
		}()
		go func() {
			defer wg.Done()
			h.delta(1, "late ")
		}()
	}
	wg.Wait()
	h.sessionEnd(true, false)
	h.reply("all done")
	fs := runFrames(t, c, "run_t_par")
	index := map[string]int{}
	used := map[int]bool{}
	for _, f := range fs {
		switch f.Type {
		case lmp.TypeRunToolStarted:
			s := decode[lmp.RunToolStarted](t, f)
			if used[s.Index] {
				t.Fatalf("index %d given twice: %s", s.Index, f.Raw)
			}
			used[s.Index], index[s.CallID] = true, s.Index
		case lmp.TypeRunToolFinished:
			d := decode[lmp.RunToolFinished](t, f)
			if i, ok := index[d.CallID]; !ok || i != d.Index {
				t.Fatalf("finish before or without its start: %s", f.Raw)
			}
		}
	}
	if len(index) != calls || fs[0].Type != lmp.TypeRunStarted {
		t.Fatalf("%d tool calls, frames %v", len(index), typeList(fs))
	}
	quiet(t, e, c, "run_t_par")
}

// A /stop that comes after the turn completed, while its final reply is on
// its way, cancels nothing: the run completes with the reply.
func TestStopAfterTheTurnCompleted(t *testing.T) { // F-6, note 17
	e, c, h := newChatTurn(t, "s_late_stop", "t_late_stop")
	h.answer("done")
	e.srv.InterruptSessionActivity(context.Background(), hermes.SessionKeyPrefix+h.chat, h.chat)
	hook(e, "agent_loop_stopped", map[string]any{"session_key": hermes.SessionKeyPrefix + h.chat, "platform": "loomi",
		"reason": "stop", "invalidation_reason": "stop_command"})
	h.reply("done")
	fs := runFrames(t, c, "run_t_late_stop")
	if done := decode[lmp.RunCompleted](t, fs[len(fs)-1]); done.Status != "completed" || done.Text != "done" {
		t.Fatalf("%+v", done)
	}
}

// A gateway that multiplexes profiles puts the profile's name in the
// session key (agent:<profile>:loomi:dm:<chat_id>), and a chat id goes in
// as it is, colons and all: the hooks that name a chat only by its key
// still reach it. /new stops a turn with agent_loop_stopped alone.
func TestSessionKeysOfANamedProfile(t *testing.T) { // H-5, note 18
	for _, c := range []struct{ name, chat, prefix string }{
		{"default profile", "", hermes.SessionKeyPrefix},
		{"named profile", "", "agent:work:loomi:dm:"},
		{"profile named main", "", "agent:main~:loomi:dm:"},
		{"chat id with colons", "a:b:c", "agent:work:loomi:dm:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			conn, dev := e.pair()
			h := chatTurn(t, e, conn, dev, c.chat, "s_prof", "t_prof")
			key := c.prefix + h.chat
			h.delta(0, "working")
			hook(e, "agent_loop_stopped", map[string]any{"session_key": key, "platform": "loomi", "reason": "new", "invalidation_reason": "new_session"})
			fs := runFrames(t, conn, "run_t_prof")
			if done := decode[lmp.RunCompleted](t, fs[len(fs)-1]); done.Status != lmp.RunStatusCancelled {
				t.Fatalf("agent_loop_stopped for %s: the run ended %+v, want cancelled", key, done)
			}
		})
	}
	// Keys of another platform, or without a profile, name no Loomi chat.
	e := newEnv(t)
	conn, dev := e.pair()
	h := chatTurn(t, e, conn, dev, "", "s_other", "t_other")
	for _, key := range []string{"agent:work:telegram:dm:" + h.chat, "agent::loomi:dm:" + h.chat, "loomi:dm:" + h.chat, "agent:work:loomi:dm:"} {
		hook(e, "agent_loop_stopped", map[string]any{"session_key": key, "platform": "loomi", "reason": "new", "invalidation_reason": "new_session"})
	}
	h.answer("still running")
	h.reply("still running")
	fs := runFrames(t, conn, "run_t_other")
	if done := decode[lmp.RunCompleted](t, fs[len(fs)-1]); done.Status != "completed" {
		t.Fatalf("a key naming no Loomi chat stopped the run: %+v", done)
	}
}
