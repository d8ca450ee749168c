package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Hook receives a Hermes plugin hook (H-1, H-2, H-3). A malformed hook is
// dropped with a log line; nothing here may panic the server.
func (s *Server) Hook(ctx context.Context, name string, kw map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("hook dropped: internal error", "hook", name, "panic", fmt.Sprint(r))
		}
	}()
	k := kwargs(kw)
	var err error
	// Enforces H-1: run.started/delta/interim/completed come from the on_stream_* and on_interim_message hooks.
	// Enforces H-2: run.tool_started/finished come from pre_tool_call and post_tool_call.
	switch name {
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
		// approval.required comes from the adapter's prompt, not this hook
		// (H-3); nothing to send.
	case "post_approval_response":
		err = s.onApprovalResponse(k)
	case "agent_loop_stopped":
		err = s.onLoopStopped(k)
	default:
		return // unknown hooks are ignored
	}
	if err != nil {
		s.log.Warn("hook dropped", "hook", name, "err", err)
	}
}

// turnOf reads the turn and task a stream or tool hook belongs to. In
// gateway turns task_id == session_id.
func turnOf(k kwargs) (runID, task string, err error) {
	turn, err := k.str("turn_id")
	if err != nil {
		return "", "", err
	}
	if turn == "" {
		return "", "", fmt.Errorf("kwarg turn_id: missing")
	}
	task, err = k.str("task_id")
	if err != nil {
		return "", "", err
	}
	if task == "" {
		if task, err = k.str("session_id"); err != nil {
			return "", "", err
		}
	}
	if task == "" {
		return "", "", fmt.Errorf("kwargs session_id and task_id: missing")
	}
	return "run_" + turn, task, nil
}

// startLocked sends run.started once per turn (H-1): on the first
// on_stream_start, or before the first frame of a turn whose start was
// dropped or arrives late. Called with runs.mu held.
func (s *Server) startLocked(r *runState, k kwargs) {
	if r.started {
		return
	}
	r.started = true
	s.runs.active[r.task] = r.id
	model, _ := k.str("model")
	provider, _ := k.str("provider")
	surface, _ := k.str("surface")
	sessionID, _ := k.str("session_id")
	if sessionID == "" {
		sessionID = r.task
	}
	s.publish(lmp.TypeRunStarted, &r.task, &r.id, lmp.RunStarted{
		RunID: r.id, TaskID: r.task, SessionID: sessionID, Surface: surface,
		Model: model, Provider: provider, StartedAt: lmp.Timestamp(time.Now()),
	})
}

// endLocked marks the run terminal: nothing more is sent for it (note 6).
func (s *Server) endLocked(r *runState) {
	r.ended = true
	if s.runs.active[r.task] == r.id {
		delete(s.runs.active, r.task)
	}
}

// withRun runs f on the hook's run unless it has ended, with runs.mu held.
func (s *Server) withRun(k kwargs, f func(r *runState) error) error {
	runID, task, err := turnOf(k)
	if err != nil {
		return err
	}
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	r := s.runs.getLocked(runID, task)
	if r.ended {
		return nil // hooks after the terminal frame are dropped
	}
	return f(r)
}

func (s *Server) onStreamStart(k kwargs) error {
	it, err := k.num("iteration")
	if err != nil {
		return err
	}
	return s.withRun(k, func(r *runState) error {
		s.startLocked(r, k)
		if int(it) > r.iteration {
			r.iteration = int(it) // later model calls only advance iteration
		}
		return nil
	})
}

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
	return s.withRun(k, func(r *runState) error {
		s.startLocked(r, k)
		s.publish(lmp.TypeRunDelta, &r.task, &r.id, lmp.RunDelta{RunID: r.id, Text: text, Kind: kind, Iteration: int(it)})
		return nil
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
	return s.withRun(k, func(r *runState) error {
		s.startLocked(r, k)
		s.publish(lmp.TypeRunInterim, &r.task, &r.id, lmp.RunInterim{RunID: r.id, Text: text, AlreadyStreamed: already})
		return nil
	})
}

// onStreamEnd ends the run when the turn is finished or failed (note 6):
// a non-empty error sends run.failed only (F-4); finished sends
// run.completed; the end of an intermediate model call sends nothing.
func (s *Server) onStreamEnd(k kwargs) error {
	finalText, err := k.str("final_text")
	if err != nil {
		return err
	}
	finished, err := k.boolean("finished")
	if err != nil {
		return err
	}
	errText, err := k.str("error")
	if err != nil {
		return err
	}
	return s.withRun(k, func(r *runState) error {
		switch {
		case errText != "":
			// Enforces F-4: a turn that ends with a non-empty error sends run.failed.
			s.startLocked(r, k)
			s.endLocked(r)
			s.publish(lmp.TypeRunFailed, &r.task, &r.id, lmp.RunFailed{RunID: r.id, Error: errText, Status: lmp.RunStatusFailed})
		case finished:
			s.startLocked(r, k)
			s.endLocked(r)
			s.publish(lmp.TypeRunCompleted, &r.task, &r.id, lmp.RunCompleted{
				RunID: r.id, Status: lmp.RunStatusCompleted, Text: finalText, Finished: true,
			})
		}
		return nil
	})
}

// onToolCall maps pre_tool_call and post_tool_call (H-2, F-3): call_id is
// tool_call_id; index numbers the calls of one iteration in pre_tool_call
// order; duration is duration_ms / 1000; ok is status == "ok".
func (s *Server) onToolCall(k kwargs, post bool) error {
	tool, err := k.str("tool_name")
	if err != nil {
		return err
	}
	callID, err := k.str("tool_call_id")
	if err != nil {
		return err
	}
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
	return s.withRun(k, func(r *runState) error {
		s.startLocked(r, k)
		it := r.iteration
		// Enforces F-3: started and finished pair by index, numbered per iteration; call_id maps back to it.
		idx, known := r.calls[callID]
		if !known || callID == "" {
			idx = r.nextIndex[it]
			r.nextIndex[it] = idx + 1
			if callID != "" {
				r.calls[callID] = idx
			}
		}
		if !post {
			s.publish(lmp.TypeRunToolStarted, &r.task, &r.id, lmp.RunToolStarted{
				RunID: r.id, Iteration: it, Tool: tool, Preview: preview(k["args"]), Index: idx, CallID: callID,
			})
			return nil
		}
		delete(r.calls, callID)
		s.publish(lmp.TypeRunToolFinished, &r.task, &r.id, lmp.RunToolFinished{
			RunID: r.id, Iteration: it, Tool: tool, OK: status == "ok", Index: idx, CallID: callID,
			Duration: durMS / 1000,
		})
		return nil
	})
}

// onLoopStopped ends the session's active run as cancelled: /stop, from
// run.cancel, run.pause or another surface.
func (s *Server) onLoopStopped(k kwargs) error {
	key, err := k.str("session_key")
	if err != nil {
		return err
	}
	task, ok := strings.CutPrefix(key, SessionKeyPrefix)
	if !ok {
		return nil // another platform's session
	}
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	runID, ok := s.runs.active[task]
	if !ok {
		return nil
	}
	r := s.runs.byID[runID]
	s.endLocked(r)
	s.publish(lmp.TypeRunCompleted, &r.task, &r.id, lmp.RunCompleted{RunID: r.id, Status: lmp.RunStatusCancelled})
	return nil
}
