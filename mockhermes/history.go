package mockhermes

import "slices"

// history is a chat's conversation_history: the messages of its current
// session, oldest first, each {"role": …, "content": …} with string
// values. The mock makes every message itself, so they are in the shape
// decoded JSON has, and bytes keeps their approxSize as they come:
// pre_llm_call hands the list on without walking it (firePreLLMCall),
// which would make every turn cost as much as its chat is long.
//
// A turn takes a view of its chat's history (view), which the chat's
// later messages never change: the chat only appends, and clips the list
// when it drops messages (a rewind), so that an append then copies it.
type history struct {
	msgs  []any
	bytes int // the sum of approxSize over msgs
}

// add appends a message.
func (h *history) add(role, content string) {
	m := map[string]any{"role": role, "content": content}
	h.msgs = append(h.msgs, m)
	h.bytes += approxSize(m)
}

// truncate keeps the first n messages.
func (h *history) truncate(n int) {
	for _, m := range h.msgs[n:] {
		h.bytes -= approxSize(m)
	}
	h.msgs = slices.Clip(h.msgs[:n])
}

// view is the history as it stands, for a turn.
func (h *history) view() history {
	return history{msgs: h.msgs[:len(h.msgs):len(h.msgs)], bytes: h.bytes}
}

// size is approxSize of the list of messages.
func (h *history) size() int { return approxSize([]any{}) + h.bytes }

// lastOfRole finds the latest message of role: its index and its text,
// or -1 and "" when there is none.
func (h *history) lastOfRole(role string) (int, string) {
	for i := len(h.msgs) - 1; i >= 0; i-- {
		if m := h.msgs[i].(map[string]any); m["role"] == role {
			text, _ := m["content"].(string)
			return i, text
		}
	}
	return -1, ""
}
