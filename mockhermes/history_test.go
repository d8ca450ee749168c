package mockhermes

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestPreLLMCallHistoryAsWalked: pre_llm_call hands on the chat's history
// without walking it (firePreLLMCall), so its bookkeeping must agree with
// a walk after every change to the chat: turns that add messages, a /retry
// that rewinds, and later turns after the rewind. Each pre_llm_call's
// history must be the messages before its turn's own, in decoded JSON's
// shape, and the hook log must count each as approxSize does.
func TestPreLLMCallHistoryAsWalked(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	texts := []string{"one", "two", RetryCommand, "three", RetryCommand, "four"}
	for i, text := range texts {
		if err := m.HandleMessage(ctx, msg("c1", text)); err != nil {
			t.Fatal(err)
		}
		f.waitFor(t, fmt.Sprintf("turn %d", i+1), func(evs []event) bool { return count(evs, "on_session_end") == i+1 })
	}
	// Every user message and its reply, except the retried ones (a
	// /retry replays its chat's last message and drops it and what
	// followed from the history first).
	want := [][]string{
		{},
		{"one", "reply"},
		{"one", "reply"},
		{"one", "reply", "two", "reply"},
		{"one", "reply", "two", "reply"},
		{"one", "reply", "two", "reply", "three", "reply"},
	}
	m.hookLog.log.mu.Lock()
	defer m.hookLog.log.mu.Unlock()
	turn := 0
	for i, h := range m.hookLog.log.entries {
		if h.Name != "pre_llm_call" {
			continue
		}
		if got, walked := m.hookLog.log.sizes[i], approxSize(h.Kwargs); got != walked {
			t.Errorf("pre_llm_call %d: logged as %d bytes, approxSize walks %d", turn+1, got, walked)
		}
		if shaped := shapeJSON(h.Kwargs); !reflect.DeepEqual(shaped, h.Kwargs) {
			t.Errorf("pre_llm_call %d: kwargs %v are not in decoded JSON's shape", turn+1, h.Kwargs)
		}
		hist, ok := h.Kwargs["conversation_history"].([]any)
		if !ok || hist == nil {
			t.Errorf("pre_llm_call %d: conversation_history is %#v, want a list (Hermes passes an empty one, never None)", turn+1, h.Kwargs["conversation_history"])
		}
		if turn < len(want) && len(hist) != len(want[turn]) {
			t.Errorf("pre_llm_call %d: %d messages of history %v, want %d", turn+1, len(hist), hist, len(want[turn]))
		}
		for j, msg := range hist {
			if turn >= len(want) || j >= len(want[turn]) {
				break
			}
			m := msg.(map[string]any)
			if w := want[turn][j]; w != "reply" && m["content"] != w || m["role"] != []string{"user", "assistant"}[j%2] {
				t.Errorf("pre_llm_call %d: message %d is %v, want %q", turn+1, j, m, w)
			}
		}
		turn++
	}
	if turn != len(texts) {
		t.Fatalf("%d pre_llm_call hooks, want %d", turn, len(texts))
	}
}
