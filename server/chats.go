package server

import (
	"context"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// Task identity (notes 18, 19 and 22). A task is one of the adapter's
// chats: task_id is the chat id, stable while Hermes rolls the chat over to
// new session-store ids (/new, idle and daily resets, compression). Hooks
// name the session id, never the chat, so the adapter learns which session
// runs in which chat from what Hermes records and says:
//   - the session's row in the session store, whose origin names the
//     platform and the chat (looked up at the first hook of a session);
//   - the approval and stop hooks, whose session_key names the chat;
//   - as a hint, pre_llm_call of a Loomi gateway turn whose user_message is
//     a message the adapter handed to handle_message (Hermes may rewrite
//     it, so this alone misses turns).
// A session of a Loomi chat shows its turns whatever started them: the
// phone's message, /retry, a queued follow-up, a process notice, the resume
// after a gateway restart. A hook of a session linked to none of its chats
// belongs to another platform, a subagent, a /background run or cron, and
// is never shown to phones. The links survive a restart of the adapter,
// since the session store outlives it.

const (
	// inboundTTL is how long a message handed to handle_message waits for
	// its turn's pre_llm_call.
	inboundTTL = 10 * time.Minute
	// maxInbound bounds the messages waiting for their turn.
	maxInbound = 256
)

// chatState is one of the adapter's chats, which LMP calls a task.
type chatState struct {
	id   string
	open *runState // the chat's unfinished run, if any
	// approvalTurns are the turns of pre_approval_request hooks waiting for
	// their prompt, oldest first.
	approvalTurns []approvalTurn
	// unreplied is a run completed before its final reply came: that reply
	// is dropped as a duplicate when it comes (note 20).
	unreplied string
}

// approvalTurn is the turn and session a pre_approval_request names.
type approvalTurn struct{ turn, session string }

// chatLocked returns the chat, creating it when new.
func (t *runTable) chatLocked(id string) *chatState {
	if c, ok := t.chats[id]; ok {
		return c
	}
	c := &chatState{id: id}
	t.chats[id] = c
	t.chatList = append(t.chatList, id)
	if len(t.chatList) > maxRuns {
		oldest := t.chatList[0]
		t.chatList = t.chatList[1:]
		if old := t.chats[oldest]; old != nil && old.open != nil {
			t.chatList = append(t.chatList, oldest) // busy: forget it later
		} else {
			delete(t.chats, oldest)
		}
	}
	return c
}

// linkLocked records that Hermes session id runs in chat.
func (t *runTable) linkLocked(session, chat string) {
	if session == "" || chat == "" {
		return
	}
	t.sessions.Put(session, chat)
}

// inboundMessage is a user message the adapter gave Hermes.
type inboundMessage struct {
	text, sender string
	at           time.Time
}

// pendingInbound is a message handed to handle_message, by chat.
type pendingInbound struct {
	chat string
	inboundMessage
}

// noteInbound records a message about to be handed to handle_message, so
// that its turn's pre_llm_call links the turn's session to the chat. It
// returns a func that forgets it again, for when Hermes refuses it.
func (t *runTable) noteInbound(chat, text, sender string) (forget func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.chatLocked(chat)
	m := pendingInbound{chat, inboundMessage{text: text, sender: sender, at: time.Now()}}
	t.inbound = append(t.inbound, m)
	if len(t.inbound) > maxInbound {
		t.inbound = t.inbound[1:]
	}
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		for i, p := range t.inbound {
			if p == m {
				t.inbound = append(t.inbound[:i:i], t.inbound[i+1:]...)
				return
			}
		}
	}
}

// claimInboundLocked takes the oldest waiting message with this text (and
// sender, when Hermes names one), in chat when chat is not empty, and
// returns its chat.
func (t *runTable) claimInboundLocked(text, sender, chat string) (string, bool) {
	now := time.Now()
	kept := t.inbound[:0]
	found := ""
	for _, p := range t.inbound {
		switch {
		case now.Sub(p.at) > inboundTTL:
			continue // its turn never came
		case found == "" && p.text == text && (sender == "" || p.sender == "" || p.sender == sender) && (chat == "" || p.chat == chat):
			found = p.chat
			continue
		}
		kept = append(kept, p)
	}
	clear(t.inbound[len(kept):])
	t.inbound = kept
	return found, found != ""
}

// sessionLookupTimeout bounds one session-store lookup made for a hook.
const sessionLookupTimeout = 2 * time.Second

// learnSession links a Hermes session the adapter has not seen to its chat
// from the session store (note 22): the row's origin names the chat. Each
// session is looked up once, whatever the answer; a failed lookup is tried
// again at the session's next hook. Called without the run table's lock.
func (s *Server) learnSession(ctx context.Context, session string) {
	if session == "" || !s.runs.unknownSession(session) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, sessionLookupTimeout)
	defer cancel()
	row, found, err := s.hermes.GetSession(ctx, session)
	if err != nil {
		s.log.Warn("session store lookup failed", "session", session, "err", err)
		return
	}
	chat, ok := chatOfRow(row)
	s.runs.lookedUp(session, chat, found && ok)
}

// unknownSession reports whether a session is linked to no chat and was
// never looked up.
func (t *runTable) unknownSession(session string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, known := t.sessions.Get(session)
	_, looked := t.looked.Get(session)
	return !known && !looked
}

// lookedUp records a session-store lookup of session: linked to chat when
// its row names one (inChat), and never looked up again either way.
func (t *runTable) lookedUp(session, chat string, inChat bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.looked.Put(session, struct{}{})
	if inChat {
		t.linkLocked(session, chat)
	}
}

// chatOfRow returns the Loomi chat a session row belongs to: a session of
// the LMP platform whose origin names a chat, unless it is a subagent's
// (it has a parent) or a /background run's (note 22).
func chatOfRow(r hermes.SessionRow) (string, bool) {
	switch {
	case r.Origin.Platform != hermes.Platform || r.Origin.ChatID == "":
		return "", false
	case r.Source != "" && r.Source != hermes.Platform:
		return "", false
	case r.ParentSessionID != "" || strings.HasPrefix(r.ID, hermes.BackgroundSessionPrefix):
		return "", false
	}
	return r.Origin.ChatID, true
}
