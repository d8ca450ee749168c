package server

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// Hook receives a Hermes plugin hook (H-1, H-2, H-3). Hooks are
// process-wide: those of other platforms' turns and of subagents are
// dropped (note 19). A malformed hook is dropped with a log line; nothing
// here may panic the server.
func (s *Server) Hook(ctx context.Context, name string, k map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("hook dropped: internal error", "hook", name, "panic", fmt.Sprint(r))
		}
	}()
	s.learnHookSession(ctx, name, k)
	var err error
	// Enforces H-1: run.started/delta/interim/completed come from the on_stream_* and on_interim_message hooks (and the turn's end).
	// Enforces H-2: run.tool_started/finished come from pre_tool_call and post_tool_call.
	switch name {
	case hermes.HookPreLLMCall:
		err = s.onPreLLMCall(k)
	case hermes.HookOnStreamStart:
		err = s.onStreamStart(k)
	case hermes.HookOnStreamDelta:
		err = s.onStreamDelta(k)
	case hermes.HookOnInterimMessage:
		err = s.onInterim(k)
	case hermes.HookOnStreamEnd:
		err = s.onStreamEnd(k)
	case hermes.HookPreToolCall:
		err = s.onToolCall(k, false)
	case hermes.HookPostToolCall:
		err = s.onToolCall(k, true)
	case hermes.HookPreApprovalRequest:
		err = s.onApprovalRequest(k)
	case hermes.HookPostApprovalResponse:
		err = s.onApprovalResponse(k)
	case hermes.HookAgentLoopStopped:
		err = s.onLoopStopped(k)
	case hermes.HookOnSessionEnd:
		err = s.onSessionEnd(k)
	default:
		return // unknown hooks are ignored
	}
	if err != nil {
		s.log.Warn("hook dropped", "hook", name, "err", err)
	}
}

// learnHookSession looks up the session of a hook of a Loomi turn that the
// adapter has not seen yet (note 22). Hooks of other platforms and of
// subagents are not looked up.
func (s *Server) learnHookSession(ctx context.Context, name string, k kwargs) {
	for _, key := range []string{"surface", "platform"} {
		if v, ok := k[key].(string); ok && v != "" && v != hermes.Platform && !(name == hermes.HookPreApprovalRequest || name == hermes.HookPostApprovalResponse) {
			return
		}
	}
	if parent, _ := k["parent_session_id"].(string); parent != "" {
		return
	}
	session, _ := k["session_id"].(string)
	if session == "" {
		session, _ = k["task_id"].(string)
	}
	if session != "" {
		s.learnSession(ctx, session)
	}
}

// kwargs are a hook's keyword arguments as they arrive; package hermes
// reads them into its typed Args.
type kwargs = map[string]any

// hookTurn is what a hook says about the turn it belongs to.
type hookTurn struct {
	turn, session, task      string
	surface, model, provider string
}

// sessionOf is the Hermes session a hook belongs to: session_id, or
// task_id when a hook gives no session_id (gateway turns run with
// task_id == session_id).
func (h hookTurn) sessionOf() (string, error) {
	if h.turn == "" {
		return "", fmt.Errorf("kwarg turn_id: missing")
	}
	if s := cmp.Or(h.session, h.task); s != "" {
		return s, nil
	}
	return "", fmt.Errorf("kwargs session_id and task_id: missing")
}

func streamTurn(b hermes.StreamBase) hookTurn {
	return hookTurn{turn: b.TurnID, session: b.SessionID, surface: b.Surface, model: b.Model, provider: b.Provider}
}

// withRun runs f with runs.mu held on the run of the hook's turn, unless
// the turn is not one of the adapter's chats (note 19) or its run has
// ended: nothing follows a terminal frame (note 6).
func (s *Server) withRun(h hookTurn, f func(r *runState)) error {
	session, err := h.sessionOf()
	if err != nil {
		return err
	}
	surface := h.surface
	if surface != "" && surface != hermes.Platform {
		return nil // a turn of another platform (note 19)
	}
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	r := s.hookRunLocked(h.turn, session)
	if r == nil || r.ended {
		return nil
	}
	r.touched = time.Now()
	if h.model != "" {
		r.model = h.model
	}
	if h.provider != "" {
		r.provider = h.provider
	}
	if surface != "" {
		r.surface = surface
	}
	f(r)
	return nil
}

func (s *Server) onStreamStart(k kwargs) error {
	a, err := hermes.Decode[hermes.OnStreamStart](k)
	if err != nil {
		return err
	}
	return s.withRun(streamTurn(a.StreamBase), func(r *runState) {
		s.startLocked(r)
		r.callErr = "" // a model call after a failed one is Hermes' retry
		r.calling = r.fork
		r.iteration = max(r.iteration, a.Iteration)
	})
}

// maxStreamed bounds the streamed text kept for a run's final text.
const maxStreamed = 256 << 10

func (s *Server) onStreamDelta(k kwargs) error {
	a, err := hermes.Decode[hermes.OnStreamDelta](k)
	if err != nil {
		return err
	}
	text, kind, it := a.Delta, a.Kind, a.Iteration
	switch kind {
	case "", lmp.DeltaKindText:
		kind = lmp.DeltaKindText
	case lmp.DeltaKindReasoning:
	default:
		return fmt.Errorf("kwarg kind: %q is not text or reasoning", kind)
	}
	return s.withRun(streamTurn(a.StreamBase), func(r *runState) {
		s.startLocked(r)
		if kind == lmp.DeltaKindText {
			if it != r.streamIt {
				r.streamed.Reset()
				r.streamIt = it
			}
			if r.streamed.Len()+len(text) <= maxStreamed {
				r.streamed.WriteString(text)
			}
		}
		s.publish(lmp.TypeRunDelta, &r.chat, &r.id, lmp.RunDelta{RunID: r.id, Text: text, Kind: kind, Iteration: it})
	})
}

func (s *Server) onInterim(k kwargs) error {
	a, err := hermes.Decode[hermes.OnInterimMessage](k)
	if err != nil {
		return err
	}
	text := a.Text
	already := a.AlreadyStreamed
	return s.withRun(streamTurn(a.StreamBase), func(r *runState) {
		s.startLocked(r)
		s.publish(lmp.TypeRunInterim, &r.chat, &r.id, lmp.RunInterim{RunID: r.id, Text: text, AlreadyStreamed: already})
	})
}

// onStreamEnd is the end of one model call, which ends nothing (note 17):
// Hermes sends finished=true after every successful call, also one that
// asks for tools, and a failed call may be retried in the same turn. It
// keeps the call's outcome for the turn's end.
func (s *Server) onStreamEnd(k kwargs) error {
	a, err := hermes.Decode[hermes.OnStreamEnd](k)
	if err != nil {
		return err
	}
	finalText, errText := a.FinalText, hermes.Deref(a.Error)
	return s.withRun(streamTurn(a.StreamBase), func(r *runState) {
		s.startLocked(r)
		r.callErr = errText
		if errText == "" && finalText != "" {
			r.finalText = finalText
		}
		if r.fork {
			r.calling = false
			if errText == "" && a.Finished {
				s.armForkEndLocked(r)
			}
		}
	})
}

// onSessionEnd is on_session_end, fired synchronously at the end of every
// turn: the run ends here even when stream hooks were dropped (note 17).
// A completed turn waits for its final reply through send(), which carries
// the final text, for at most FinalReplyWait.
func (s *Server) onSessionEnd(k kwargs) error {
	a, err := hermes.Decode[hermes.OnSessionEnd](k)
	if err != nil {
		return err
	}
	completed, interrupted := a.Completed, a.Interrupted
	// A Hermes that predates the failed kwarg takes every turn that did
	// not complete for a failed one.
	_, saysFailed := k["failed"]
	if a.Platform != "" && a.Platform != hermes.Platform {
		return nil // another platform's turn (note 19)
	}
	return s.withRun(hookTurn{turn: a.TurnID, session: a.SessionID, task: a.TaskID, model: a.Model}, func(r *runState) {
		s.startLocked(r)
		switch {
		case interrupted:
			s.completeLocked(r, lmp.RunStatusCancelled, r.bestText(), false)
		case !completed:
			if saysFailed && !a.Failed {
				// The loop stopped short of an answer without an error
				// (an iteration or budget limit): the run completes
				// unfinished, with what it streamed.
				s.completeLocked(r, lmp.RunStatusCompleted, r.bestText(), false)
				return
			}
			msg := r.callErr
			if msg == "" {
				msg = "the turn did not complete"
				if a.TurnExitReason != "" {
					msg = "the turn ended: " + a.TurnExitReason
				}
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
//
// Both hooks are read as post_tool_call, whose kwargs are pre_tool_call's
// and the outcome's.
func (s *Server) onToolCall(k kwargs, post bool) error {
	a, err := hermes.Decode[hermes.PostToolCall](k)
	if err != nil {
		return err
	}
	tool, callID := a.ToolName, a.ToolCallID
	durMS, status := float64(a.DurationMS), a.Status
	var args any
	if a.Args != nil {
		args = a.Args
	}
	return s.withRun(hookTurn{turn: a.TurnID, session: a.SessionID, task: a.TaskID}, func(r *runState) {
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
	a, err := hermes.Decode[hermes.AgentLoopStopped](k)
	if err != nil {
		return err
	}
	if chat, ok := hermes.ChatOfKey(a.SessionKey); ok {
		s.cancelChatRun(chat)
	}
	return nil
}

// InterruptSessionActivity is interrupt_session_activity, which the gateway
// calls when /stop stops the session's turn: the chat's run ends
// cancelled (F-6), its waiting approvals with it.
func (s *Server) InterruptSessionActivity(ctx context.Context, sessionKey, chatID string) {
	if chatID == "" {
		chatID, _ = hermes.ChatOfKey(sessionKey)
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
