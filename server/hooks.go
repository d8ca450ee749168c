package server

import (
	"cmp"
	"context"
	"fmt"

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
	handle, ok := hookHandlers[name]
	if !ok {
		return // unknown hooks are ignored
	}
	if err := handle(s, k); err != nil {
		s.log.Warn("hook dropped", "hook", name, "err", err)
	}
}

// hookHandlers decode each hook the adapter takes and hand it to the table
// that owns what it changes.
var hookHandlers = map[string]func(s *Server, k kwargs) error{
	// Enforces H-1: run.started/delta/interim/completed come from the on_stream_* and on_interim_message hooks (and the turn's end).
	hermes.HookPreLLMCall:       (*Server).onPreLLMCall,
	hermes.HookOnStreamStart:    (*Server).onStreamStart,
	hermes.HookOnStreamDelta:    (*Server).onStreamDelta,
	hermes.HookOnInterimMessage: (*Server).onInterim,
	hermes.HookOnStreamEnd:      (*Server).onStreamEnd,
	// Enforces H-2: run.tool_started/finished come from pre_tool_call and post_tool_call.
	hermes.HookPreToolCall:          func(s *Server, k kwargs) error { return s.onToolCall(k, false) },
	hermes.HookPostToolCall:         func(s *Server, k kwargs) error { return s.onToolCall(k, true) },
	hermes.HookPreApprovalRequest:   (*Server).onApprovalRequest,
	hermes.HookPostApprovalResponse: (*Server).onApprovalResponse,
	hermes.HookAgentLoopStopped:     (*Server).onLoopStopped,
	hermes.HookOnSessionEnd:         (*Server).onSessionEnd,
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

func streamTurn(b hermes.StreamBase) hookTurn {
	return hookTurn{turn: b.TurnID, session: b.SessionID, surface: b.Surface, model: b.Model, provider: b.Provider}
}

// onPreLLMCall is pre_llm_call. Only a Loomi gateway turn (platform
// "loomi", task_id == session_id, no parent session) can be a chat's turn.
func (s *Server) onPreLLMCall(k kwargs) error {
	a, err := hermes.Decode[hermes.PreLLMCall](k)
	if err != nil {
		return err
	}
	session, err := hookTurn{turn: a.TurnID, session: a.SessionID, task: a.TaskID}.sessionOf()
	if err != nil {
		return err
	}
	if a.Platform != hermes.Platform || (a.TaskID != "" && a.TaskID != session) || a.ParentSessionID != "" {
		return nil // another platform's turn, or a subagent's (note 19)
	}
	s.runs.beginTurn(a.TurnID, session, a.UserMessage, a.SenderID, a.Model)
	return nil
}

func (s *Server) onStreamStart(k kwargs) error {
	a, err := hermes.Decode[hermes.OnStreamStart](k)
	if err != nil {
		return err
	}
	return s.runs.streamStart(streamTurn(a.StreamBase), a.Iteration)
}

func (s *Server) onStreamDelta(k kwargs) error {
	a, err := hermes.Decode[hermes.OnStreamDelta](k)
	if err != nil {
		return err
	}
	kind := a.Kind
	switch kind {
	case "", lmp.DeltaKindText:
		kind = lmp.DeltaKindText
	case lmp.DeltaKindReasoning:
	default:
		return fmt.Errorf("kwarg kind: %q is not text or reasoning", kind)
	}
	return s.runs.streamDelta(streamTurn(a.StreamBase), a.Delta, kind, a.Iteration)
}

func (s *Server) onInterim(k kwargs) error {
	a, err := hermes.Decode[hermes.OnInterimMessage](k)
	if err != nil {
		return err
	}
	already := a.AlreadyStreamed
	return s.runs.interim(streamTurn(a.StreamBase), a.Text, already)
}

// onStreamEnd is the end of one model call (note 17).
func (s *Server) onStreamEnd(k kwargs) error {
	a, err := hermes.Decode[hermes.OnStreamEnd](k)
	if err != nil {
		return err
	}
	return s.runs.streamEnd(streamTurn(a.StreamBase), a.FinalText, hermes.Deref(a.Error), a.Finished)
}

// onSessionEnd is on_session_end, fired at the end of every turn.
func (s *Server) onSessionEnd(k kwargs) error {
	a, err := hermes.Decode[hermes.OnSessionEnd](k)
	if err != nil {
		return err
	}
	if a.Platform != "" && a.Platform != hermes.Platform {
		return nil // another platform's turn (note 19)
	}
	// A Hermes that predates the failed kwarg takes every turn that did
	// not complete for a failed one.
	_, saysFailed := k["failed"]
	end := turnEnd{completed: a.Completed, interrupted: a.Interrupted, failed: a.Failed, saysFailed: saysFailed, exitReason: a.TurnExitReason}
	return s.runs.endTurn(hookTurn{turn: a.TurnID, session: a.SessionID, task: a.TaskID, model: a.Model}, end)
}

// onToolCall is pre_tool_call and post_tool_call (H-2, F-3). Both hooks
// are read as post_tool_call, whose kwargs are pre_tool_call's and the
// outcome's.
func (s *Server) onToolCall(k kwargs, post bool) error {
	a, err := hermes.Decode[hermes.PostToolCall](k)
	if err != nil {
		return err
	}
	tool, callID := a.ToolName, a.ToolCallID
	call := toolHook{tool: tool, callID: callID, durMS: float64(a.DurationMS), status: a.Status}
	if a.Args != nil {
		call.args = a.Args
	}
	return s.runs.toolCall(hookTurn{turn: a.TurnID, session: a.SessionID, task: a.TaskID}, call, post)
}

// onApprovalRequest is pre_approval_request, fired just before Hermes asks
// the adapter for the prompt (turns.go, approvalRequested).
func (s *Server) onApprovalRequest(k kwargs) error {
	a, err := hermes.Decode[hermes.PreApprovalRequest](k)
	if err != nil {
		return err
	}
	h := approvalHookOf(a.Approval, a.Coalesced)
	chat, ok := hermes.ChatOfKey(h.key)
	if !ok {
		return nil // another platform's approval (note 19)
	}
	s.runs.approvalRequested(chat, h.turn, h.session, h.prompted())
	return nil
}

// onApprovalResponse is post_approval_response (H-3): Hermes' outcome of
// an approval (approvals.go, hookResponse).
func (s *Server) onApprovalResponse(k kwargs) error {
	post, err := hermes.Decode[hermes.PostApprovalResponse](k)
	if err != nil {
		return err
	}
	h := approvalHookOf(post.Approval, false)
	if !h.prompted() {
		return nil // a hook of an approval that had no prompt answers none
	}
	// Hermes passes no request or approval id today; one that a later
	// Hermes passes names the approval.
	reqID, _ := k["request_id"].(string)
	apprID, _ := k["approval_id"].(string)
	s.approvals.hookResponse(h, post.Choice, cmp.Or(reqID, apprID))
	return nil
}

// onLoopStopped is agent_loop_stopped: /stop or /new stopped the chat's
// turn, which ends cancelled.
func (s *Server) onLoopStopped(k kwargs) error {
	a, err := hermes.Decode[hermes.AgentLoopStopped](k)
	if err != nil {
		return err
	}
	if chat, ok := hermes.ChatOfKey(a.SessionKey); ok {
		s.runs.cancelChat(chat)
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
		s.runs.cancelChat(chatID)
	}
}
