package mockhermes

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func startApproval(t *testing.T, m *Mock, chat, cmd string, timeout time.Duration) (*Approval, chan string) {
	t.Helper()
	ap, err := m.StartApproval(context.Background(), ApprovalSpec{
		ChatID: chat, Command: cmd, AllowPermanent: true, AllowSession: true, Timeout: timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 1)
	go func() { out <- ap.Wait(context.Background()) }()
	return ap, out
}

func recv(t *testing.T, ch chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(hangGuard):
		t.Fatal("approval wait did not end")
		return ""
	}
}

func TestApprovalPromptAndHooks(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ap, out := startApproval(t, m, "chat1", "rm -rf /tmp/x", time.Minute)
	evs := f.snapshot()
	if len(evs) != 2 || evs[0].Name != "pre_approval_request" || evs[1].Kind != "prompt" {
		t.Fatalf("approval start = %s", names(evs))
	}
	pre := evs[0].Kwargs
	if pre["command"] != "rm -rf /tmp/x" || pre["session_key"] != SessionKey("chat1") || pre["surface"] != "gateway" ||
		pre["pattern_key"] != "rm" || len(pre["pattern_keys"].([]any)) != 1 {
		t.Fatalf("pre_approval_request = %v", pre)
	}
	p := evs[1].Prompt
	if p.RequestID != ap.ID() || p.SessionKey != SessionKey("chat1") || p.ChatID != "chat1" ||
		!p.AllowPermanent || !p.AllowSession || p.SmartDenied {
		t.Fatalf("prompt = %+v", p)
	}
	if n, _ := m.ResolveGatewayApproval(context.Background(), SessionKey("chat1"), "once", false, "", ""); n != 1 {
		t.Fatalf("resolve count = %d", n)
	}
	if c := recv(t, out); c != "once" {
		t.Fatalf("outcome = %q", c)
	}
	post := f.waitHook(t, "post_approval_response", 1)
	if kw := post[len(post)-1].Kwargs; kw["choice"] != "once" || kw["command"] != "rm -rf /tmp/x" {
		t.Fatalf("post_approval_response = %v", kw)
	}
}

func TestResolveSemantics(t *testing.T) {
	m, _ := newTestMock(t, Options{})
	ctx := context.Background()
	key := SessionKey("c")
	if n, _ := m.ResolveGatewayApproval(ctx, key, "once", false, "", ""); n != 0 {
		t.Fatalf("nothing pending resolved %d", n)
	}
	a, outA := startApproval(t, m, "c", "cmd a", time.Minute)
	b, outB := startApproval(t, m, "c", "cmd b", time.Minute)
	_, outC := startApproval(t, m, "c", "cmd c", time.Minute)

	// request_id targets that entry, not the oldest.
	if n, _ := m.ResolveGatewayApproval(ctx, key, "deny", false, "no", b.ID()); n != 1 {
		t.Fatalf("by id resolved %d", n)
	}
	if c := recv(t, outB); c != "deny" || Granted(c) {
		t.Fatalf("b = %q", c)
	}
	// An id that is not pending resolves nothing.
	if n, _ := m.ResolveGatewayApproval(ctx, key, "once", false, "", b.ID()); n != 0 {
		t.Fatalf("stale id resolved %d", n)
	}
	// Without an id: FIFO, the oldest.
	if n, _ := m.ResolveGatewayApproval(ctx, key, "whatever", false, "", ""); n != 1 {
		t.Fatalf("fifo resolved %d", n)
	}
	if c := recv(t, outA); c != "whatever" || !Granted(c) {
		t.Fatalf("a = %q (F-8: unvalidated choices grant)", c)
	}
	if got := m.Pending(key); len(got) != 1 || got[0] == a.ID() {
		t.Fatalf("pending = %v", got)
	}
	// Another session's key resolves nothing here.
	if n, _ := m.ResolveGatewayApproval(ctx, SessionKey("other"), "once", true, "", ""); n != 0 {
		t.Fatalf("other session resolved %d", n)
	}
	_, outD := startApproval(t, m, "c", "cmd d", time.Minute)
	if n, _ := m.ResolveGatewayApproval(ctx, key, "session", true, "", ""); n != 2 {
		t.Fatalf("resolve_all resolved %d", n)
	}
	if c, d := recv(t, outC), recv(t, outD); c != "session" || d != "session" {
		t.Fatalf("resolve_all outcomes %q %q", c, d)
	}

	calls := m.Calls()
	if len(calls) != 6 {
		t.Fatalf("recorded %d calls", len(calls))
	}
	c1 := calls[1]
	if c1.Name != "resolve_gateway_approval" || c1.Args["session_key"] != key || c1.Args["choice"] != "deny" ||
		c1.Args["request_id"] != b.ID() || c1.Args["reason"] != "no" || c1.Args["resolve_all"] != false || c1.Result != 1 {
		t.Fatalf("recorded call = %+v", c1)
	}
	if calls[0].Args["request_id"] != nil || calls[0].Result != 0 {
		t.Fatalf("empty request_id should record None: %+v", calls[0])
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Seq <= calls[i-1].Seq || calls[i].At < calls[i-1].At {
			t.Fatal("calls not in order")
		}
	}
}

func TestApprovalTimeout(t *testing.T) {
	m, f := newTestMock(t, Options{ApprovalTimeout: 40 * time.Millisecond})
	pb := play(t, m, "approval")
	waitDone(t, pb)
	evs := f.snapshot()
	var post, tool map[string]any
	var text strings.Builder
	for _, e := range evs {
		switch e.Name {
		case "post_approval_response":
			post = e.Kwargs
		case "post_tool_call":
			tool = e.Kwargs
		case "on_stream_delta":
			if e.Kwargs["iteration"] == 2.0 {
				text.WriteString(e.Kwargs["delta"].(string))
			}
		}
	}
	if post["choice"] != "timeout" || tool["status"] != "error" || tool["tool_name"] != "terminal" {
		t.Fatalf("post = %v, tool = %v", post, tool)
	}
	if !strings.Contains(text.String(), "Nobody answered") {
		t.Fatalf("timeout branch text = %q", text.String())
	}
	if len(m.Pending(SessionKey(pb.TaskID))) != 0 {
		t.Fatal("timed-out approval still pending")
	}
}

func TestApprovalScenarioBranches(t *testing.T) {
	for _, c := range []struct{ choice, want, status string }{
		{"once", "Done: ./build is removed.", "ok"},
		{"always", "Done: ./build is removed.", "ok"},
		{"deny", "Understood, I left ./build alone.", "error"}, // a denied command is a tool error
	} {
		t.Run(c.choice, func(t *testing.T) {
			m, f := newTestMock(t, Options{})
			pb := play(t, m, "approval")
			evs := f.waitFor(t, "prompt", func(evs []event) bool { return count(evs, "prompt") == 1 })
			id := evs[len(evs)-1].Prompt.RequestID
			if n, _ := m.ResolveGatewayApproval(context.Background(), SessionKey(pb.TaskID), c.choice, false, "", id); n != 1 {
				t.Fatalf("resolved %d", n)
			}
			waitDone(t, pb)
			var final, status any
			for _, e := range f.snapshot() {
				if e.Name == "on_stream_end" {
					final = e.Kwargs["final_text"]
				}
				if e.Name == "post_tool_call" {
					status = e.Kwargs["status"]
				}
			}
			if final != c.want || status != c.status {
				t.Fatalf("final %q status %v", final, status)
			}
		})
	}
}

func TestInterruptCancelsApproval(t *testing.T) {
	m, f := newTestMock(t, Options{})
	pb := play(t, m, "approval")
	f.waitFor(t, "prompt", func(evs []event) bool { return count(evs, "prompt") == 1 })
	// A second, driver-style approval in the same chat is released too.
	_, out := startApproval(t, m, pb.TaskID, "shutdown now", time.Minute)
	if err := m.Stop(pb.TaskID); err != nil {
		t.Fatal(err)
	}
	if c := recv(t, out); c != ChoiceCancelled {
		t.Fatalf("outcome = %q", c)
	}
	waitDone(t, pb)
	evs := f.waitHook(t, "agent_loop_stopped", 1)
	var choices []any
	for _, e := range evs {
		if e.Name == "post_approval_response" {
			choices = append(choices, e.Kwargs["choice"])
		}
	}
	if len(choices) != 2 || choices[0] != "cancelled" || choices[1] != "cancelled" {
		t.Fatalf("post_approval_response choices = %v", choices)
	}
	// Hermes tells the adapter, the approvals and the turn end, then
	// agent_loop_stopped fires.
	hs := hooksOf(evs)
	if got := compact(hs); hs[len(hs)-1].Name != "agent_loop_stopped" || count(hs, "post_approval_response") != 2 ||
		index(hs, isHook("on_session_end")) < index(hs, isHook("post_tool_call")) {
		t.Fatalf("order: %s", got)
	}
	calls := m.Calls()
	if len(calls) != 1 || calls[0].Name != "interrupt_session_activity" || calls[0].Args["chat_id"] != pb.TaskID ||
		calls[0].Args["session_key"] != SessionKey(pb.TaskID) {
		t.Fatalf("calls = %+v", calls)
	}
	// /stop with nothing running only answers: no interrupt, no hook.
	hooks := count(f.snapshot(), "agent_loop_stopped")
	if err := m.Stop(pb.TaskID); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "the answer to an idle /stop", func(evs []event) bool {
		return evs[len(evs)-1].Kind == "send" && strings.Contains(evs[len(evs)-1].Text, "No active task")
	})
	if len(m.Calls()) != 1 || count(f.snapshot(), "agent_loop_stopped") != hooks {
		t.Fatal("idle /stop interrupted something")
	}
}

func TestApprovalPromptFailureFallsBackToSend(t *testing.T) {
	m, f := newTestMock(t, Options{})
	f.promptErr = errors.New("offline")
	_, out := startApproval(t, m, "c", "reboot", time.Minute)
	evs := f.snapshot()
	if evs[len(evs)-1].Kind != "send" || !strings.Contains(evs[len(evs)-1].Text, "reboot") {
		t.Fatalf("no fallback send: %s", names(evs))
	}
	m.ResolveGatewayApproval(context.Background(), SessionKey("c"), "deny", false, "", "")
	if recv(t, out) != "deny" {
		t.Fatal("wait did not go on after the fallback")
	}
}

func TestCloseEndsWaits(t *testing.T) {
	m, f := newTestMock(t, Options{})
	pb := play(t, m, "approval")
	f.waitFor(t, "prompt", func(evs []event) bool { return count(evs, "prompt") == 1 })
	pb2, _ := m.Play(context.Background(), "reply", nil, pb.TaskID) // queued
	m.Close()
	if err := pb.Wait(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("running playback after Close: %v", err)
	}
	if err := pb2.Wait(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("queued playback after Close: %v", err)
	}
	if _, err := m.Play(context.Background(), "reply", nil, ""); !errors.Is(err, ErrClosed) {
		t.Fatalf("play after Close: %v", err)
	}
}

// hooksOf keeps the hooks and prompts.
func hooksOf(evs []event) []event {
	var out []event
	for _, e := range evs {
		if e.Kind == "hook" || e.Kind == "prompt" {
			out = append(out, e)
		}
	}
	return out
}
