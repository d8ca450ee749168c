package server

import (
	"context"
	"fmt"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Hook receives a Hermes plugin hook (H-1, H-2, H-3). Hooks are
// process-wide: those of other platforms' turns and of subagents are
// dropped (note 19). A malformed hook is dropped with a log line; nothing
// here may panic the server.
func (s *Server) Hook(ctx context.Context, name string, kw map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("hook dropped: internal error", "hook", name, "panic", fmt.Sprint(r))
		}
	}()
	k := kwargs(kw)
	var err error
	// Enforces H-1: run.started/delta/interim/completed come from the on_stream_* and on_interim_message hooks (and the turn's end).
	// Enforces H-2: run.tool_started/finished come from pre_tool_call and post_tool_call.
	switch name {
	case "pre_llm_call":
		err = s.onPreLLMCall(k)
	case "on_stream_start":
		err = s.onStreamStart(k)
	case "on_stream_delta":
		err = s.onStreamDelta(k)
	case "on_interim_message":
		err = s.onInterim(k)
	case "on_stream_end":
		err = s.onStreamEnd(k)
	case "pre_tool_call":
		err = s.onToolCall(k, false)
	case "post_tool_call":
		err = s.onToolCall(k, true)
	case "pre_approval_request":
		err = s.onApprovalRequest(k)
	case "post_approval_response":
		err = s.onApprovalResponse(k)
	case "agent_loop_stopped":
		err = s.onLoopStopped(k)
	case "on_session_end":
		err = s.onSessionEnd(k)
	default:
		return // unknown hooks are ignored
	}
	if err != nil {
		s.log.Warn("hook dropped", "hook", name, "err", err)
	}
}

// turnOf reads the turn and the Hermes session a hook belongs to. In
// gateway turns task_id == session_id.
func turnOf(k kwargs) (turn, session string, err error) {
	if turn, err = k.str("turn_id"); err != nil {
		return "", "", err
	}
	if turn == "" {
		return "", "", fmt.Errorf("kwarg turn_id: missing")
	}
	if session, err = k.str("session_id"); err != nil {
		return "", "", err
	}
	if session == "" {
		if session, err = k.str("task_id"); err != nil {
			return "", "", err
		}
	}
	if session == "" {
		return "", "", fmt.Errorf("kwargs session_id and task_id: missing")
	}
	return turn, session, nil
}

// withRun runs f with runs.mu held on the run of the hook's turn, unless
// the turn is not one of the adapter's chats (note 19) or its run has
// ended: nothing follows a terminal frame (note 6).
func (s *Server) withRun(k kwargs, f func(r *runState)) error {
	turn, session, err := turnOf(k)
	if err != nil {
		return err
	}
	surface, err := k.str("surface")
	if err != nil {
		return err
	}
	if surface != "" && surface != Platform {
		return nil // a turn of another platform (note 19)
	}
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	r := s.hookRunLocked(turn, session)
	if r == nil || r.ended {
		return nil
	}
	r.touched = time.Now()
	if v, _ := k.str("model"); v != "" {
		r.model = v
	}
	if v, _ := k.str("provider"); v != "" {
		r.provider = v
	}
	if surface != "" {
		r.surface = surface
	}
	f(r)
	return nil
}

func (s *Server) onStreamStart(k kwargs) error {
	it, err := k.num("iteration")
	if err != nil {
		return err
	}
	return s.withRun(k, func(r *runState) {
		s.startLocked(r)
		r.callErr = "" // a model call after a failed one is Hermes' retry
		r.iteration = max(r.iteration, int(it))
	})
}

// maxStreamed bounds the streamed text kept for a run's final text.
const maxStreamed = 256 << 10

func (s *Server) onStreamDelta(k kwargs) error {
	text, err := k.str("delta")
	if err != nil {
		return err
	}
	kind, err := k.str("kind")
	if err != nil {
		return err
	}
	switch kind {
	case "", lmp.DeltaKindText:
		kind = lmp.DeltaKindText
	case lmp.DeltaKindReasoning:
	default:
		return fmt.Errorf("kwarg kind: %q is not text or reasoning", kind)
	}
	it, err := k.num("iteration")
	if err != nil {
		return err
	}
	return s.withRun(k, func(r *runState) {
		s.startLocked(r)
		if kind == lmp.DeltaKindText {
			if int(it) != r.streamIt {
				r.streamed.Reset()
				r.streamIt = int(it)
			}
			if r.streamed.Len()+len(text) <= maxStreamed {
				r.streamed.WriteString(text)
			}
		}
		s.publish(lmp.TypeRunDelta, &r.chat, &r.id, lmp.RunDelta{RunID: r.id, Text: text, Kind: kind, Iteration: int(it)})
	})
}

func (s *Server) onInterim(k kwargs) error {
	text, err := k.str("text")
	if err != nil {
		return err
	}
	already, err := k.boolean("already_streamed")
	if err != nil {
		return err
	}
	return s.withRun(k, func(r *runState) {
		s.startLocked(r)
		s.publish(lmp.TypeRunInterim, &r.chat, &r.id, lmp.RunInterim{RunID: r.id, Text: text, AlreadyStreamed: already})
	})
}

// onStreamEnd is the end of one model call, which ends nothing (note 17):
// Hermes sends finished=true after every successful call, also one that
// asks for tools, and a failed call may be retried in the same turn. It
// keeps the call's outcome for the turn's end.
func (s *Server) onStreamEnd(k kwargs) error {
	finalText, err := k.str("final_text")
	if err != nil {
		return err
	}
	if _, err := k.boolean("finished"); err != nil {
		return err
	}
	errText, err := k.str("error")
	if err != nil {
		return err
	}
	return s.withRun(k, func(r *runState) {
		s.startLocked(r)
		r.callErr = errText
		if errText == "" && finalText != "" {
			r.finalText = finalText
		}
	})
}

// onSessionEnd is on_session_end, fired synchronously at the end of every
// turn: the run ends here even when stream hooks were dropped (note 17).
// A completed turn waits for its final reply through send(), which carries
// the final text, for at most FinalReplyWait.
func (s *Server) onSessionEnd(k kwargs) error {
	completed, err := k.boolean("completed")
	if err != nil {
		return err
	}
	interrupted, err := k.boolean("interrupted")
	if err != nil {
		return err
	}
	platform, err := k.str("platform")
	if err != nil {
		return err
	}
	if platform != "" && platform != Platform {
		return nil // another platform's turn (note 19)
	}
	return s.withRun(k, func(r *runState) {
		s.startLocked(r)
		switch {
		case interrupted:
			s.completeLocked(r, lmp.RunStatusCancelled, r.bestText(), false)
		case !completed:
			msg := r.callErr
			if msg == "" {
				msg = "the turn did not complete"
			}
			s.failLocked(r, msg)
		case !r.awaitingReply:
			s.awaitReplyLocked(r)
		}
	})
}

// onToolCall maps pre_tool_call and post_tool_call (H-2, F-3): call_id is
// tool_call_id; index numbers the calls of one iteration in pre_tool_call
// order; duration is duration_ms / 1000; ok is status == "ok" (an "error",
// also a command denied at approval, or a plugin's "blocked" is not ok).
func (s *Server) onToolCall(k kwargs, post bool) error {
	v, err := k.strs("tool_name", "tool_call_id")
	if err != nil {
		return err
	}
	tool, callID := v[0], v[1]
	var durMS float64
	var status string
	if post {
		if durMS, err = k.num("duration_ms"); err != nil {
			return err
		}
		if status, err = k.str("status"); err != nil {
			return err
		}
	}
	args := k["args"]
	return s.withRun(k, func(r *runState) {
		s.startLocked(r)
		_, open := r.calls[callID]
		repeated := callID != "" && (r.finished[callID] || (open && !post))
		if repeated {
			return // Hermes fires each hook of a call once
		}
		if !post {
			s.toolStartedLocked(r, tool, callID, args)
			return
		}
		c, ok := r.calls[callID]
		if !ok || callID == "" {
			// A bridge tool (tool_search, tool_describe) fires
			// post_tool_call without pre_tool_call: announce it, so that
			// every run.tool_finished pairs with a run.tool_started.
			c = s.toolStartedLocked(r, tool, callID, args)
		}
		delete(r.calls, callID)
		if callID != "" {
			r.finished[callID] = true
		}
		s.publish(lmp.TypeRunToolFinished, &r.chat, &r.id, lmp.RunToolFinished{
			RunID: r.id, Iteration: c.iteration, Tool: tool, OK: status == "ok", Index: c.index, CallID: callID,
			Duration: durMS / 1000,
		})
	})
}

// toolStartedLocked sends run.tool_started for a call of the run's current
// iteration. Tool hooks carry no iteration: they belong to the latest model
// call whose on_stream_start has arrived.
func (s *Server) toolStartedLocked(r *runState, tool, callID string, args any) toolCall {
	it := max(r.iteration, 1)
	// Enforces F-3: started and finished pair by index, numbered per iteration; call_id maps back to it.
	c := toolCall{iteration: it, index: r.nextIndex[it]}
	r.nextIndex[it]++
	if callID != "" {
		r.calls[callID] = c
	}
	s.publish(lmp.TypeRunToolStarted, &r.chat, &r.id, lmp.RunToolStarted{
		RunID: r.id, Iteration: it, Tool: tool, Preview: preview(args), Index: c.index, CallID: callID,
	})
	return c
}

// onLoopStopped is agent_loop_stopped: /stop or /new stopped the chat's
// turn, which ends cancelled.
func (s *Server) onLoopStopped(k kwargs) error {
	key, err := k.str("session_key")
	if err != nil {
		return err
	}
	if chat, ok := chatOfKey(key); ok {
		s.cancelChatRun(chat)
	}
	return nil
}

// InterruptSessionActivity is interrupt_session_activity, which the gateway
// calls when /stop stops the session's turn: the chat's run ends
// cancelled (F-6), its waiting approvals with it.
func (s *Server) InterruptSessionActivity(ctx context.Context, sessionKey, chatID string) {
	if chatID == "" {
		chatID, _ = chatOfKey(sessionKey)
	}
	if chatID != "" {
		s.cancelChatRun(chatID)
	}
}

// cancelChatRun ends the chat's unfinished run as cancelled, unless its
// turn already completed and only its final reply is awaited.
func (s *Server) cancelChatRun(chat string) {
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	if c, ok := s.runs.chats[chat]; ok && c.open != nil && !c.open.awaitingReply {
		r := c.open
		s.startLocked(r)
		s.completeLocked(r, lmp.RunStatusCancelled, r.bestText(), false)
	}
}
