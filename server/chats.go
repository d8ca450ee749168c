package server

import (
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// Task identity (notes 18 and 19). A task is one of the adapter's chats:
// task_id is the chat id, stable while Hermes rolls the chat over to new
// session-store ids (/new, idle and daily resets, compression). Hooks name
// the session id, never the chat, so the adapter learns which session runs
// in which chat from two places only:
//   - pre_llm_call of a Loomi gateway turn whose user_message is a message
//     the adapter handed to handle_message (the turn of that message);
//   - the approval hooks, whose session_key names the chat.
// A hook of a session linked to none of its chats belongs to another
// platform, a subagent or a background run, and is never shown to phones.

const (
	// inboundTTL is how long a message handed to handle_message waits for
	// its turn's pre_llm_call.
	inboundTTL = 10 * time.Minute
	// maxInbound bounds the messages waiting for their turn.
	maxInbound = 256
)

// pendingInbound is a message handed to handle_message, by chat.
type pendingInbound struct {
	chat string
	inboundMessage
}

// noteInbound records a message about to be handed to handle_message, so
// that its turn's pre_llm_call links the turn's session to the chat. It
// returns a func that forgets it again, for when Hermes refuses it.
func (s *Server) noteInbound(chat, text, sender string) (forget func()) {
	t := s.runs
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

// onPreLLMCall is pre_llm_call, fired once per turn before its first model
// call. A Loomi gateway turn (platform "loomi", task_id == session_id) of
// a message the adapter sent links its session to the chat (note 18); the
// turn's run is then known before its stream hooks arrive.
func (s *Server) onPreLLMCall(k kwargs) error {
	a, err := hermes.Decode[hermes.PreLLMCall](k)
	if err != nil {
		return err
	}
	turn := a.TurnID
	session, err := hookTurn{turn: turn, session: a.SessionID, task: a.TaskID}.sessionOf()
	if err != nil {
		return err
	}
	platform, task, text, sender, model := a.Platform, a.TaskID, a.UserMessage, a.SenderID, a.Model
	if platform != hermes.Platform || (task != "" && task != session) {
		return nil // another platform's turn, or a subagent's (note 19)
	}
	t := s.runs
	t.mu.Lock()
	defer t.mu.Unlock()
	chat, known := t.sessions[session]
	if claimed, ok := t.claimInboundLocked(text, sender, chat); ok && !known {
		chat, known = claimed, true
		t.linkLocked(session, chat)
	}
	if !known {
		return nil // a session none of the adapter's chats runs in (note 19)
	}
	r := s.runForTurnLocked(turn, chat, session)
	if model != "" {
		r.model = model
	}
	return nil
}

// runForTurnLocked returns the run of a turn in chat, creating it when
// new. A chat runs one turn at a time: an unfinished run of an older turn
// has lost its end and is ended first (note 17). Called with runs.mu held.
func (s *Server) runForTurnLocked(turn, chat, session string) *runState {
	t := s.runs
	if r, ok := t.byID[runID(turn)]; ok {
		return r
	}
	c := t.chatLocked(chat)
	if c.open != nil {
		s.endLostLocked(c.open)
	}
	r := t.newRunLocked(turn, chat, session)
	c.open, c.unreplied = r, ""
	s.armIdleLocked(r)
	return r
}

// hookRunLocked returns the run a turn's hook belongs to, or nil when the
// turn is not one of the adapter's chats (note 19). Called with runs.mu
// held.
func (s *Server) hookRunLocked(turn, session string) *runState {
	if r, ok := s.runs.byID[runID(turn)]; ok {
		return r
	}
	chat, ok := s.runs.sessions[session]
	if !ok {
		return nil
	}
	return s.runForTurnLocked(turn, chat, session)
}
