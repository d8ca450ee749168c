package mockhermes

import (
	"context"
	"testing"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// A subagent's row and a /background run's record the chat as their origin
// but never become the chat's session: the chat's turns stay where they ran.
func TestDetachedRowsKeepTheChatsSession(t *testing.T) {
	m, _ := newTestMock(t, Options{AllowAllUsers: true})
	own := m.SeedSession(SessionSeed{ChatID: "chat_1", ID: "s_own"})
	m.SeedSession(SessionSeed{ChatID: "chat_1", ID: "s_sub", ParentSessionID: own})
	m.SeedSession(SessionSeed{ChatID: "chat_1", ID: hermes.BackgroundSessionPrefix + "1"})
	if got := m.SessionOf("chat_1"); got != own {
		t.Fatalf("the chat's session is %q after seeding detached rows, want %q", got, own)
	}
	for _, id := range []string{"s_sub", hermes.BackgroundSessionPrefix + "1"} {
		row, ok, _ := m.GetSession(context.Background(), id)
		if !ok || row.Origin.ChatID != "chat_1" {
			t.Fatalf("row %s: %+v, want its origin to name chat_1", id, row)
		}
	}
}

// /btw during a running turn forks the chat's session: stream hooks with a
// turn_id of their own and the chat's session_id, no pre_llm_call and no
// on_session_end of the fork, its answer through send(); the turn goes on.
func TestBtwCommandForksTheRunningTurn(t *testing.T) {
	m, f := newTestMock(t, Options{AllowAllUsers: true})
	src := hermes.SessionSource{Platform: Platform, ChatID: "chat_1", ChatType: "dm", UserID: "dev"}
	if err := m.HandleMessage(context.Background(), hermes.MessageEvent{Text: "/mock long", MessageType: "text", Source: src}); err != nil {
		t.Fatal(err)
	}
	main := f.waitHook(t, hermes.HookOnStreamDelta, 1)
	var mainTurn string
	for _, e := range main {
		if e.Name == hermes.HookPreLLMCall {
			mainTurn = e.Kwargs["turn_id"].(string)
		}
	}
	if err := m.HandleMessage(context.Background(), hermes.MessageEvent{Text: "/btw which branch?", MessageType: "text", Source: src}); err != nil {
		t.Fatal(err)
	}
	evs := f.waitFor(t, "the /btw answer", func(evs []event) bool {
		for _, e := range evs {
			if e.Kind == "send" && e.Meta["notify"] == nil && len(e.Text) > 0 && e.ChatID == "chat_1" {
				return true
			}
		}
		return false
	})
	session := m.SessionOf("chat_1")
	forks := map[string]bool{}
	for _, e := range evs {
		if e.Kind != "hook" {
			continue
		}
		turn, _ := e.Kwargs["turn_id"].(string)
		if turn != mainTurn && turn != "" {
			forks[turn] = true
			if e.Kwargs["session_id"] != session {
				t.Fatalf("fork hook %s in session %v, want the chat's %s", e.Name, e.Kwargs["session_id"], session)
			}
			if e.Name == hermes.HookPreLLMCall || e.Name == hermes.HookOnSessionEnd {
				t.Fatalf("a fork fired %s", e.Name)
			}
		}
	}
	if len(forks) != 1 {
		t.Fatalf("%d fork turns, want 1: %s", len(forks), names(evs))
	}
	n := count(f.snapshot(), hermes.HookOnStreamDelta)
	f.waitHook(t, hermes.HookOnStreamDelta, n+1) // the turn goes on
	if err := m.Stop("chat_1"); err != nil {
		t.Fatal(err)
	}
}
