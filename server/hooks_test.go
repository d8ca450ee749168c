package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

func hook(e *env, name string, kw map[string]any) {
	e.hermes.adapter.Hook(context.Background(), name, kw)
}

func base(turn, session string, iteration float64) map[string]any {
	return map[string]any{"turn_id": turn, "iteration": iteration, "session_id": session, "model": "m", "provider": "p", "surface": "gateway", "telemetry_schema_version": 1.0}
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

// types reads frames until one of type last, returning their types.
func typesUntil(t *testing.T, c *client.Conn, last string) []client.Frame {
	t.Helper()
	var out []client.Frame
	for {
		f, err := c.Next(ctxT(t))
		if err != nil {
			t.Fatalf("after %d frames: %v", len(out), err)
		}
		out = append(out, f)
		if f.Type == last {
			return out
		}
	}
}

func TestRunMapping(t *testing.T) { // H-1, H-2, F-3, note 6
	e := newEnv(t)
	c, _ := e.pair()
	hook(e, "on_stream_start", base("t1", "s1", 1))
	hook(e, "on_stream_delta", with(base("t1", "s1", 1), "delta", "Hel", "kind", "text"))
	hook(e, "pre_tool_call", map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}, "task_id": "s1", "session_id": "s1", "tool_call_id": "call_a", "turn_id": "t1"})
	hook(e, "pre_tool_call", map[string]any{"tool_name": "terminal", "args": "pwd", "task_id": "s1", "session_id": "s1", "tool_call_id": "call_b", "turn_id": "t1"})
	hook(e, "post_tool_call", map[string]any{"tool_name": "terminal", "task_id": "s1", "session_id": "s1", "tool_call_id": "call_b", "turn_id": "t1", "duration_ms": 1500.0, "status": "error"})
	hook(e, "post_tool_call", map[string]any{"tool_name": "terminal", "task_id": "s1", "session_id": "s1", "tool_call_id": "call_a", "turn_id": "t1", "duration_ms": 250, "status": "ok"})
	hook(e, "on_stream_end", with(base("t1", "s1", 1), "final_text", "", "finished", false, "error", nil))
	hook(e, "on_stream_start", base("t1", "s1", 2)) // second model call of the same turn
	hook(e, "on_interim_message", with(base("t1", "s1", 2), "text", "thinking", "already_streamed", true))
	hook(e, "on_stream_delta", with(base("t1", "s1", 2), "delta", "lo", "kind", "reasoning"))
	hook(e, "on_stream_end", with(base("t1", "s1", 2), "final_text", "Hello", "finished", true, "error", nil))
	hook(e, "on_stream_delta", with(base("t1", "s1", 2), "delta", "late", "kind", "text")) // after the end: dropped

	fs := typesUntil(t, c, lmp.TypeRunCompleted)
	var got []string
	for _, f := range fs {
		got = append(got, f.Type)
		if lmp.Deref(f.RunID) != "run_t1" || lmp.Deref(f.TaskID) != "s1" {
			t.Fatalf("frame ids %s", f.Raw)
		}
	}
	want := []string{"run.started", "run.delta", "run.tool_started", "run.tool_started", "run.tool_finished", "run.tool_finished", "run.interim", "run.delta", "run.completed"}
	if len(got) != len(want) {
		t.Fatalf("frames %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("frames %v, want %v", got, want)
		}
	}
	st := decode[lmp.RunStarted](t, fs[0])
	if st.RunID != "run_t1" || st.SessionID != "s1" || st.Model != "m" || st.Surface != "gateway" {
		t.Fatalf("run.started %+v", st)
	}
	ts0, ts1 := decode[lmp.RunToolStarted](t, fs[2]), decode[lmp.RunToolStarted](t, fs[3])
	if ts0.Index != 0 || ts1.Index != 1 || ts0.CallID != "call_a" || ts0.Preview != `{"command":"ls"}` || ts1.Preview != "pwd" {
		t.Fatalf("tool starts %+v %+v", ts0, ts1)
	}
	tf0, tf1 := decode[lmp.RunToolFinished](t, fs[4]), decode[lmp.RunToolFinished](t, fs[5])
	if tf0.CallID != "call_b" || tf0.Index != 1 || tf0.OK || tf0.Duration != 1.5 || tf1.Index != 0 || !tf1.OK || tf1.Duration != 0.25 {
		t.Fatalf("tool finishes %+v %+v", tf0, tf1)
	}
	if d := decode[lmp.RunDelta](t, fs[7]); d.Kind != "reasoning" || d.Iteration != 2 {
		t.Fatalf("delta %+v", d)
	}
	if done := decode[lmp.RunCompleted](t, fs[8]); done.Status != "completed" || done.Text != "Hello" || !done.Finished || done.Error != nil {
		t.Fatalf("completed %+v", done)
	}
	_ = c.Send(ctxT(t), lmp.Ping{})
	expectType[lmp.Pong](t, c)
	if p := c.Pending(); len(p) != 0 {
		t.Fatalf("frames after the terminal one: %s", p[0].Raw)
	}
}

func TestRunFailedOnlyAndSynthesizedStart(t *testing.T) { // F-4, note 6
	e := newEnv(t)
	c, _ := e.pair()
	// The start hook was dropped: the delta must be preceded by run.started.
	hook(e, "on_stream_delta", with(base("t2", "s2", 1), "delta", "x", "kind", "text"))
	hook(e, "on_stream_end", with(base("t2", "s2", 1), "final_text", "", "finished", false, "error", "model overloaded"))
	hook(e, "on_stream_end", with(base("t2", "s2", 1), "final_text", "x", "finished", true, "error", nil))
	fs := typesUntil(t, c, lmp.TypeRunFailed)
	if len(fs) != 3 || fs[0].Type != lmp.TypeRunStarted || fs[1].Type != lmp.TypeRunDelta {
		t.Fatalf("frames %v", fs)
	}
	if f := decode[lmp.RunFailed](t, fs[2]); f.Error != "model overloaded" || f.Status != "failed" {
		t.Fatalf("%+v", f)
	}
	_ = c.Send(ctxT(t), lmp.Ping{})
	expectType[lmp.Pong](t, c)
	if p := c.Pending(); len(p) != 0 {
		t.Fatalf("second terminal frame: %s", p[0].Raw)
	}
}

func TestMalformedHooksAreDropped(t *testing.T) {
	e := newEnv(t)
	c, _ := e.pair()
	hook(e, "on_stream_start", map[string]any{"turn_id": 7, "session_id": "s"})
	hook(e, "on_stream_delta", map[string]any{"turn_id": "t", "session_id": "s", "delta": []int{1}})
	hook(e, "post_tool_call", map[string]any{"turn_id": "t", "session_id": "s", "duration_ms": "slow"})
	hook(e, "on_stream_start", map[string]any{})
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
	e := newEnv(t)
	c, _ := e.pair()
	hook(e, "on_stream_start", base("t3", "s3", 1))
	expectType[lmp.RunStarted](t, c)

	_ = c.Send(ctxT(t), lmp.RunPause{RunID: "run_t3"})
	_, done := expectType[lmp.RunCompleted](t, c)
	if done.Status != lmp.RunStatusCancelled || done.RunID != "run_t3" {
		t.Fatalf("%+v", done)
	}
	calls := e.hermes.callsNamed("handle_message")
	if len(calls) != 1 || calls[0].Args["text"] != server.StopCommand || calls[0].Args["chat_id"] != "s3" {
		t.Fatalf("interrupt calls %v", calls)
	}
	_ = c.Send(ctxT(t), lmp.RunResume{RunID: "run_t3"})
	deadline := time.Now().Add(5 * time.Second)
	for len(e.hermes.callsNamed("handle_message")) == 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling the recorded calls
	}
	hm := e.hermes.callsNamed("handle_message")
	if len(hm) != 2 || hm[1].Args["text"] != "continue" || hm[1].Args["chat_id"] != "s3" {
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
}

func TestTaskListAndNotification(t *testing.T) { // F-9, H-4
	e := newEnv(t)
	c, _ := e.pair()
	now := time.Now()
	e.hermes.sessions = []server.SessionRow{
		{ID: "s_live", Source: "loomi", Title: "Live one", StartedAt: now, LastActive: now, MessageCount: 2, Preview: "hi"},
		{ID: "s_ended", Source: "cli", StartedAt: now, EndedAt: &now},
	}
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
