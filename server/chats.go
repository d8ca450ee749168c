package server

import (
	"context"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
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
	if platform != hermes.Platform || (task != "" && task != session) || a.ParentSessionID != "" {
		return nil // another platform's turn, or a subagent's (note 19)
	}
	t := s.runs
	t.mu.Lock()
	defer t.mu.Unlock()
	chat, known := t.sessions.Get(session)
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

// sessionLookupTimeout bounds one session-store lookup made for a hook.
const sessionLookupTimeout = 2 * time.Second

// learnSession links a Hermes session the adapter has not seen to its chat
// from the session store (note 22): the row's origin names the chat. Each
// session is looked up once, whatever the answer; a failed lookup is tried
// again at the session's next hook. Called without runs.mu.
func (s *Server) learnSession(ctx context.Context, session string) {
	t := s.runs
	t.mu.Lock()
	_, known := t.sessions.Get(session)
	_, looked := t.looked.Get(session)
	t.mu.Unlock()
	if session == "" || known || looked {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, sessionLookupTimeout)
	defer cancel()
	row, found, err := s.hermes.GetSession(ctx, session)
	if err != nil {
		s.log.Warn("session store lookup failed", "session", session, "err", err)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.looked.Put(session, struct{}{})
	if chat, ok := chatOfRow(row); found && ok {
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

// runForTurnLocked returns the run of a turn in chat, creating it when
// new. A chat runs one turn at a time: an unfinished run of an older turn
// has lost its end and is ended first (note 17). Called with runs.mu held.
func (s *Server) runForTurnLocked(turn, chat, session string) *runState {
	t := s.runs
	if r, ok := t.byID.Get(runID(turn)); ok {
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
// turn is not shown: a turn of none of the adapter's chats (note 19), or a
// fork of a chat's session (note 22). Every turn of a chat begins with
// pre_llm_call, fired on the agent's thread before any of its other hooks,
// which makes its run; a turn with none is a fork (/btw, the background
// memory and skill review), which shares the chat's session id, has a
// turn_id of its own and never fires on_session_end. Forks are not shown as
// runs: one could never be ended on Hermes' word, and it must neither end
// the chat's run nor take its hooks. What a fork delivers through send()
// reaches the phone once, as a notification. With Config.ShowForks a
// fork is a run of its own in the chat instead (forkRunLocked). Called
// with runs.mu held.
func (s *Server) hookRunLocked(turn, session string) *runState {
	if r, ok := s.runs.byID.Get(runID(turn)); ok && r.session == session {
		return r
	}
	if chat, ok := s.runs.sessions.Get(session); ok && s.cfg.ShowForks {
		return s.forkRunLocked(turn, chat, session)
	}
	return nil
}

// forkRunLocked makes the run of a fork of chat's session (Config.ShowForks):
// a run of the chat that is not the chat's open run, so that it neither
// ends the chat's run nor is ended by the chat's next turn. Called with
// runs.mu held.
func (s *Server) forkRunLocked(turn, chat, session string) *runState {
	s.runs.chatLocked(chat)
	r := s.runs.newRunLocked(turn, chat, session)
	r.fork = true
	s.armIdleLocked(r)
	return r
}

// armForkEndLocked ends a fork's run FinalReplyWait after a successful
// model call, unless a later hook of the fork came (then it waits that long
// after it) or a model call of it is streaming (then the idle net watches
// it again). Hermes fires no on_session_end for a fork. Called with
// runs.mu held.
func (s *Server) armForkEndLocked(r *runState) {
	wait := s.cfg.FinalReplyWait
	if r.timer != nil {
		r.timer.Stop()
	}
	r.timer = time.AfterFunc(wait, func() {
		s.runs.mu.Lock()
		defer s.runs.mu.Unlock()
		switch {
		case r.ended:
		case r.calling:
			s.armIdleLocked(r)
		case time.Since(r.touched) < wait:
			r.timer.Reset(wait - time.Since(r.touched))
		default:
			s.completeLocked(r, lmp.RunStatusCompleted, r.bestText(), true)
		}
	})
}
