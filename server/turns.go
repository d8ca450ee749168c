package server

import (
	"cmp"
	"fmt"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// What each hook of a Hermes turn does to the turn's run: the run table's
// side of the hooks, which hooks.go decodes and hands over.

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

// beginTurn is pre_llm_call of a Loomi gateway turn in session, fired once
// per turn before its first model call: a turn of a session linked to a
// chat, or of a message the adapter sent (text and sender, which links the
// session to that message's chat, note 18), gets its run, known before its
// stream hooks arrive. A turn of no chat is not shown (note 19).
func (t *runTable) beginTurn(turn, session, text, sender, model string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	chat, known := t.sessions.Get(session)
	if claimed, ok := t.claimInboundLocked(text, sender, chat); ok && !known {
		chat, known = claimed, true
		t.linkLocked(session, chat)
	}
	if !known {
		return // a session none of the adapter's chats runs in (note 19)
	}
	r := t.runForTurnLocked(turn, chat, session)
	if model != "" {
		r.model = model
	}
}

// withRun runs f with the table's lock held on the run of the hook's turn,
// unless the turn is not one of the adapter's chats (note 19) or its run
// has ended: nothing follows a terminal frame (note 6).
func (t *runTable) withRun(h hookTurn, f func(r *runState)) error {
	session, err := h.sessionOf()
	if err != nil {
		return err
	}
	surface := h.surface
	if surface != "" && surface != hermes.Platform {
		return nil // a turn of another platform (note 19)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.hookRunLocked(h.turn, session)
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

// streamStart is the start of a model call of the turn.
func (t *runTable) streamStart(h hookTurn, iteration int) error {
	return t.withRun(h, func(r *runState) {
		t.startLocked(r)
		r.callErr = "" // a model call after a failed one is Hermes' retry
		r.calling = r.fork
		r.iteration = max(r.iteration, iteration)
	})
}

// maxStreamed bounds the streamed text kept for a run's final text.
const maxStreamed = 256 << 10

// streamDelta sends a delta of kind (text or reasoning) of iteration it,
// and keeps the text the latest iteration streamed for the run's end.
func (t *runTable) streamDelta(h hookTurn, text, kind string, it int) error {
	return t.withRun(h, func(r *runState) {
		t.startLocked(r)
		if kind == lmp.DeltaKindText {
			if it != r.streamIt {
				r.streamed.Reset()
				r.streamIt = it
			}
			if r.streamed.Len()+len(text) <= maxStreamed {
				r.streamed.WriteString(text)
			}
		}
		t.publish(lmp.TypeRunDelta, &r.chat, &r.id, lmp.RunDelta{RunID: r.id, Text: text, Kind: kind, Iteration: it})
	})
}

// interim sends an interim message of the turn.
func (t *runTable) interim(h hookTurn, text string, already bool) error {
	return t.withRun(h, func(r *runState) {
		t.startLocked(r)
		t.publish(lmp.TypeRunInterim, &r.chat, &r.id, lmp.RunInterim{RunID: r.id, Text: text, AlreadyStreamed: already})
	})
}

// streamEnd is the end of one model call, which ends nothing (note 17):
// Hermes sends finished=true after every successful call, also one that
// asks for tools, and a failed call may be retried in the same turn. It
// keeps the call's outcome for the turn's end. A fork's run, which no
// on_session_end ends, ends some time after a call that finished.
func (t *runTable) streamEnd(h hookTurn, finalText, errText string, finished bool) error {
	return t.withRun(h, func(r *runState) {
		t.startLocked(r)
		r.callErr = errText
		if errText == "" && finalText != "" {
			r.finalText = finalText
		}
		if r.fork {
			r.calling = false
			if errText == "" && finished {
				t.armForkEndLocked(r)
			}
		}
	})
}

// turnEnd is how on_session_end says a turn ended.
type turnEnd struct {
	completed, interrupted bool
	// failed is the failed kwarg; saysFailed is whether Hermes passed
	// one at all.
	failed, saysFailed bool
	exitReason         string // turn_exit_reason
}

// endTurn is the end of the turn, fired synchronously at the end of every
// turn: the run ends here even when stream hooks were dropped (note 17).
// A completed turn waits for its final reply through send(), which carries
// the final text, for at most FinalReplyWait.
func (t *runTable) endTurn(h hookTurn, end turnEnd) error {
	completed, interrupted := end.completed, end.interrupted
	return t.withRun(h, func(r *runState) {
		t.startLocked(r)
		switch {
		case interrupted:
			t.completeLocked(r, lmp.RunStatusCancelled, r.bestText(), false)
		case !completed:
			if end.saysFailed && !end.failed {
				// The loop stopped short of an answer without an error
				// (an iteration or budget limit): the run completes
				// unfinished, with what it streamed.
				t.completeLocked(r, lmp.RunStatusCompleted, r.bestText(), false)
				return
			}
			msg := r.callErr
			if msg == "" {
				msg = "the turn did not complete"
				if end.exitReason != "" {
					msg = "the turn ended: " + end.exitReason
				}
			}
			t.failLocked(r, msg)
		case !r.awaitingReply:
			t.awaitReplyLocked(r)
		}
	})
}

// toolHook is what the adapter reads of a tool hook: post_tool_call's
// kwargs are pre_tool_call's and the outcome's.
type toolHook struct {
	tool, callID string
	args         any
	durMS        float64
	status       string // post_tool_call only
}

// toolCall maps pre_tool_call and post_tool_call (H-2, F-3): call_id is
// tool_call_id; index numbers the calls of one iteration in pre_tool_call
// order; duration is duration_ms / 1000; ok is status == "ok" (an "error",
// also a command denied at approval, or a plugin's "blocked" is not ok).
func (t *runTable) toolCall(h hookTurn, call toolHook, post bool) error {
	tool, callID, args := call.tool, call.callID, call.args
	durMS, status := call.durMS, call.status
	return t.withRun(h, func(r *runState) {
		t.startLocked(r)
		_, open := r.calls[callID]
		repeated := callID != "" && (r.finished[callID] || (open && !post))
		if repeated {
			return // Hermes fires each hook of a call once
		}
		if !post {
			t.toolStartedLocked(r, tool, callID, args)
			return
		}
		c, ok := r.calls[callID]
		if !ok || callID == "" {
			// A bridge tool (tool_search, tool_describe) fires
			// post_tool_call without pre_tool_call: announce it, so that
			// every run.tool_finished pairs with a run.tool_started.
			c = t.toolStartedLocked(r, tool, callID, args)
		}
		delete(r.calls, callID)
		if callID != "" {
			r.finished[callID] = true
		}
		t.publish(lmp.TypeRunToolFinished, &r.chat, &r.id, lmp.RunToolFinished{
			RunID: r.id, Iteration: c.iteration, Tool: tool, OK: status == "ok", Index: c.index, CallID: callID,
			Duration: durMS / 1000,
		})
	})
}

// toolStartedLocked sends run.tool_started for a call of the run's current
// iteration. Tool hooks carry no iteration: they belong to the latest model
// call whose on_stream_start has arrived.
func (t *runTable) toolStartedLocked(r *runState, tool, callID string, args any) toolCall {
	it := max(r.iteration, 1)
	// Enforces F-3: started and finished pair by index, numbered per iteration; call_id maps back to it.
	c := toolCall{iteration: it, index: r.nextIndex[it]}
	r.nextIndex[it]++
	if callID != "" {
		r.calls[callID] = c
	}
	t.publish(lmp.TypeRunToolStarted, &r.chat, &r.id, lmp.RunToolStarted{
		RunID: r.id, Iteration: it, Tool: tool, Preview: preview(args), Index: c.index, CallID: callID,
	})
	return c
}

// approvalRequested is pre_approval_request in chat: its session_key
// names the chat, which links the hook's session to it (note 18), and its
// turn_id names the run the prompt that follows will belong to, unless no
// prompt follows (prompted false).
func (t *runTable) approvalRequested(chat, turn, session string, prompted bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.linkLocked(session, chat)
	if !prompted {
		return
	}
	c := t.chatLocked(chat)
	c.approvalTurns = append(c.approvalTurns, approvalTurn{turn, session})
	if len(c.approvalTurns) > maxRuns {
		c.approvalTurns = c.approvalTurns[1:]
	}
}

// withPromptRun calls show with the unfinished run an approval prompt in
// chat belongs to ("" when none, or when chat is ""), the table's lock
// held until show returns: the run cannot end in between, so
// approval.required never follows its run's end.
func (t *runTable) withPromptRun(chat string, show func(run string)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	run := ""
	if chat != "" {
		run = t.promptRunLocked(chat)
	}
	show(run)
}

// promptRunLocked returns the unfinished run a prompt in chat belongs to:
// the turn of the chat's oldest pre_approval_request still waiting for
// its prompt, else the chat's unfinished run; "" when none.
func (t *runTable) promptRunLocked(chat string) string {
	c := t.chatLocked(chat)
	for len(c.approvalTurns) > 0 {
		at := c.approvalTurns[0]
		c.approvalTurns = c.approvalTurns[1:]
		if at.turn == "" {
			break // Hermes named no turn
		}
		r, _ := t.byID.Get(runID(at.turn))
		if r == nil && c.open == nil {
			r = t.runForTurnLocked(at.turn, chat, at.session)
		}
		if r != nil && !r.ended {
			t.startLocked(r)
			return r.id
		}
	}
	if c.open != nil {
		t.startLocked(c.open)
		return c.open.id
	}
	return ""
}
