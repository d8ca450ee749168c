package server_test

import (
	"context"
	"sync"
	"testing"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

func TestApprovalFirstComeFirstServed(t *testing.T) { // M-2, M-3, I-1, I-2, note 7, H-5
	e := newEnv(t)
	a, _ := e.pair()
	b, _ := e.pair()
	e.hermes.askApproval(t, "task_1", "req_1")
	for _, c := range []*client.Conn{a, b} {
		f, req := expectType[lmp.ApprovalRequired](t, c)
		if req.ApprovalID != "req_1" || *req.TaskID != "task_1" || len(req.Choices) != 2 || req.SessionKeyRef != hermes.SessionKeyPrefix+"task_1" {
			t.Fatalf("approval.required %s", f.Raw)
		}
	}
	var wg sync.WaitGroup
	results := make([]client.Frame, 2)
	for i, c := range []*client.Conn{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Send(ctxT(t), lmp.ApprovalResolve{ApprovalID: "req_1", Choice: "once", RequestID: "r-same"})
			f, err := c.Expect(ctxT(t), func(f client.Frame) bool { return f.Type == lmp.TypeAck || f.Type == lmp.TypeError })
			if err != nil {
				t.Error(err)
			}
			results[i] = f
		}()
	}
	wg.Wait()
	var winner *client.Conn
	acks, lost := 0, 0
	for i, f := range results {
		switch f.Type {
		case lmp.TypeAck:
			acks++
			winner = []*client.Conn{a, b}[i]
			if ack := decode[lmp.Ack](t, f); ack.For != lmp.TypeApprovalResolve || lmp.Deref(ack.ApprovalID) != "req_1" || ack.RequestID != "r-same" {
				t.Fatalf("ack %s", f.Raw)
			}
		case lmp.TypeError:
			if er := decode[lmp.Error](t, f); er.Code == lmp.CodeAlreadyResolved && !er.Fatal && er.RequestID == "r-same" {
				lost++
			}
		}
	}
	if acks != 1 || lost != 1 {
		t.Fatalf("acks %d, already_resolved %d; want 1 and 1", acks, lost)
	}
	if n := len(e.hermes.callsNamed("resolve_gateway_approval")); n != 1 {
		t.Fatalf("resolve_gateway_approval called %d times", n)
	}
	for _, c := range []*client.Conn{a, b} {
		_, res := expectType[lmp.ApprovalResolved](t, c)
		if res.ApprovalID != "req_1" || res.Choice != "once" || res.DecidedBy != lmp.DecidedByRemote {
			t.Fatalf("approval.resolved %+v", res)
		}
	}
	// The winner repeating its request gets its ack again (I-1, note 7); a
	// new request_id gets already_resolved (I-2).
	_ = winner.Send(ctxT(t), lmp.ApprovalResolve{ApprovalID: "req_1", Choice: "once", RequestID: "r-same"})
	expectType[lmp.Ack](t, winner)
	_ = winner.Send(ctxT(t), lmp.ApprovalResolve{ApprovalID: "req_1", Choice: "deny", RequestID: "r-new"})
	if _, er := expectType[lmp.Error](t, winner); er.Code != lmp.CodeAlreadyResolved {
		t.Fatalf("%+v", er)
	}
	// approval.resolved went out exactly once.
	_ = a.Send(ctxT(t), lmp.Ping{})
	expectType[lmp.Pong](t, a)
	for _, f := range a.Pending() {
		if f.Type == lmp.TypeApprovalResolved {
			t.Fatalf("second approval.resolved: %s", f.Raw)
		}
	}
}

func TestApprovalTimeoutDecidedBy(t *testing.T) { // note 15
	e := newEnv(t)
	a, _ := e.pair()
	e.hermes.askApproval(t, "task_2", "req_2")
	e.hermes.adapter.Hook(context.Background(), "post_approval_response", map[string]any{
		"session_key": hermes.SessionKeyPrefix + "task_2", "choice": "timeout",
	})
	_, res := expectType[lmp.ApprovalResolved](t, a)
	if res.DecidedBy != lmp.DecidedByTimeout || res.Choice != "timeout" {
		t.Fatalf("%+v", res)
	}
	e.hermes.askApproval(t, "task_2", "req_3")
	e.hermes.adapter.Hook(context.Background(), "post_approval_response", map[string]any{
		"session_key": hermes.SessionKeyPrefix + "task_2", "choice": "always", "surface": "cli",
	})
	if _, res := expectType[lmp.ApprovalResolved](t, a); res.ApprovalID != "req_3" || res.DecidedBy != lmp.DecidedByLocal {
		t.Fatalf("%+v", res)
	}
	_ = a.Send(ctxT(t), lmp.ApprovalResolve{ApprovalID: "req_3", Choice: "once", RequestID: "x"})
	if _, er := expectType[lmp.Error](t, a); er.Code != lmp.CodeAlreadyResolved {
		t.Fatalf("%+v", er)
	}
}

func TestSessionSendIdempotent(t *testing.T) { // F-5, I-1, note 14
	e := newEnv(t)
	a, da := e.pair()
	b, _ := e.pair()
	_ = a.Send(ctxT(t), lmp.SessionSend{Text: "hi", RequestID: "r1"})
	f1, ack1 := expectType[lmp.Ack](t, a)
	_ = a.Send(ctxT(t), lmp.SessionSend{Text: "hi", RequestID: "r1"})
	f2, ack2 := expectType[lmp.Ack](t, a)
	if string(f1.Payload) != string(f2.Payload) || ack1.For != lmp.TypeSessionSend || lmp.Deref(ack1.TaskID) == "" {
		t.Fatalf("repeat ack differs: %s vs %s", f1.Payload, f2.Payload)
	}
	_ = b.Send(ctxT(t), lmp.SessionSend{TaskID: ack2.TaskID, Text: "other", RequestID: "r1"})
	expectType[lmp.Ack](t, b)
	calls := e.hermes.callsNamed("handle_message")
	if len(calls) != 2 {
		t.Fatalf("handle_message called %d times, want 2: %v", len(calls), calls)
	}
	if calls[0].Args["chat_id"] != *ack1.TaskID || calls[0].Args["user_id"] != da.ID || calls[1].Args["chat_id"] != *ack1.TaskID {
		t.Fatalf("calls %v", calls)
	}
}

func TestRequestIDWindow(t *testing.T) { // I-1: the last N request ids
	e := newEnv(t, func(c *server.Config) { c.RequestIDWindow = 2 })
	a, _ := e.pair()
	for _, id := range []string{"r1", "r2", "r3", "r1"} {
		_ = a.Send(ctxT(t), lmp.SessionSend{TaskID: ptr("t"), Text: "x", RequestID: id})
		expectType[lmp.Ack](t, a)
	}
	if n := len(e.hermes.callsNamed("handle_message")); n != 4 {
		t.Fatalf("r1 outside the window of 2 was not executed again: %d calls", n)
	}
	_ = a.Send(ctxT(t), lmp.SessionSend{TaskID: ptr("t"), Text: "x", RequestID: "r3"})
	expectType[lmp.Ack](t, a)
	if n := len(e.hermes.callsNamed("handle_message")); n != 4 {
		t.Fatalf("r3 inside the window executed again: %d calls", n)
	}
}

func TestHermesFailureIsRemembered(t *testing.T) { // I-1: the error is the earlier result
	e := newEnv(t)
	a, _ := e.pair()
	e.hermes.mu.Lock()
	e.hermes.failNext = context.DeadlineExceeded
	e.hermes.mu.Unlock()
	_ = a.Send(ctxT(t), lmp.SessionSend{Text: "x", RequestID: "rf"})
	f1, er := expectType[lmp.Error](t, a)
	if er.Code != lmp.CodeHermesUnavailable || er.RequestID != "rf" || er.Fatal {
		t.Fatalf("%+v", er)
	}
	_ = a.Send(ctxT(t), lmp.SessionSend{Text: "x", RequestID: "rf"})
	f2, _ := expectType[lmp.Error](t, a)
	if string(f1.Payload) != string(f2.Payload) {
		t.Fatal("repeat did not get the earlier error verbatim")
	}
}
