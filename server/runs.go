package server

import (
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// A run is one Hermes turn (note 17): the model calls, tool calls and
// approvals between a turn's pre_llm_call and its on_session_end. Hermes
// fires on_stream_start/on_stream_end around every model call of the turn,
// so the end of a call ends nothing; the turn ends at on_session_end, at
// its final reply through send(), or, when Hermes never says so, by one of
// the safety nets below.

// Defaults of the run safety nets (docs/protocol.md, note 17).
const (
	// DefaultFinalReplyWait is how long a turn that Hermes reported
	// completed waits for its final reply through send(), which carries
	// the final text, before it completes with the text it streamed.
	DefaultFinalReplyWait = 5 * time.Second
	// DefaultRunIdleTimeout is how long an unfinished run may go without
	// any hook of its turn before it is ended as lost.
	DefaultRunIdleTimeout = 30 * time.Minute
)

// runState follows one run so that the frames sent for it never
// contradict each other: one run.started, one terminal frame, nothing after
// it (note 6).
type runState struct {
	id, turn  string
	chat      string // the task: the chat the turn runs in (note 18)
	session   string // Hermes' session id at the time of the turn
	started   bool
	ended     bool
	iteration int

	model, provider, surface string // for run.started, from whichever hook gave them

	nextIndex map[int]int         // per iteration: index of the next tool call (F-3)
	calls     map[string]toolCall // call_id → its run.tool_started
	finished  map[string]bool     // call_ids already finished

	callErr   string          // error of the turn's latest model call; "" once a call succeeds
	finalText string          // final_text of the latest successful model call
	streamed  strings.Builder // text deltas of the latest iteration
	streamIt  int             // the iteration streamed holds

	awaitingReply bool      // Hermes reported the turn completed; its final reply has not come
	fork          bool      // a fork of the chat's session, shown with Config.ShowForks
	calling       bool      // a fork's model call is streaming
	touched       time.Time // the latest hook of the turn
	timer         *time.Timer
}

// toolCall is where a tool call was announced.
type toolCall struct{ iteration, index int }

// bestText is the final text known for the run: the latest successful
// call's final_text, or else what its latest iteration streamed.
func (r *runState) bestText() string {
	if r.finalText != "" {
		return r.finalText
	}
	return r.streamed.String()
}

// startLocked sends run.started once per run (H-1): at the first hook of
// its turn, whichever that is, so that no frame of a run comes before it.
func (t *runTable) startLocked(r *runState) {
	if r.started {
		return
	}
	r.started = true
	surface := r.surface
	if surface == "" {
		surface = hermes.Platform
	}
	t.publish(lmp.TypeRunStarted, &r.chat, &r.id, lmp.RunStarted{
		RunID: r.id, TaskID: r.chat, SessionID: r.session, Surface: surface,
		Model: r.model, Provider: r.provider, StartedAt: lmp.Timestamp(time.Now()),
	})
}

// endLocked marks the run terminal before its terminal frame is sent:
// nothing more is sent for it (note 6). Its approvals still waiting are
// settled first, since Hermes cancels them when the turn ends, so that
// their approval.resolved does not follow the run's end.
func (t *runTable) endLocked(r *runState) {
	r.ended = true
	r.awaitingReply = false
	if r.timer != nil {
		r.timer.Stop()
	}
	if c, ok := t.chats[r.chat]; ok && c.open == r {
		c.open = nil
	}
	t.approvals.settleRun(r.id)
	// The table keeps ended runs for lookups only: free what a live run
	// needs (hooks after the end never reach it; the terminal frame's text
	// is taken before this).
	r.streamed, r.finalText = strings.Builder{}, ""
	r.calls, r.finished, r.nextIndex = nil, nil, nil
}

// completeLocked ends the run with run.completed.
func (t *runTable) completeLocked(r *runState, status, text string, finished bool) {
	t.endLocked(r)
	t.publish(lmp.TypeRunCompleted, &r.chat, &r.id, lmp.RunCompleted{RunID: r.id, Status: status, Text: text, Finished: finished})
}

// failLocked ends the run with run.failed only (note 6).
func (t *runTable) failLocked(r *runState, errText string) {
	t.endLocked(r)
	// Enforces F-4: a turn that ends with a non-empty error sends run.failed.
	t.publish(lmp.TypeRunFailed, &r.chat, &r.id, lmp.RunFailed{RunID: r.id, Error: errText, Status: lmp.RunStatusFailed})
}

// endLostLocked ends a run whose turn's end never came (a newer turn of
// the chat began, or no hook came for RunIdleTimeout): failed when its
// latest model call failed, otherwise completed with finished false and the
// text it streamed (note 17).
func (t *runTable) endLostLocked(r *runState) {
	t.startLocked(r)
	if r.callErr != "" {
		t.failLocked(r, r.callErr)
		return
	}
	t.completeLocked(r, lmp.RunStatusCompleted, r.bestText(), false)
}

// armIdleLocked starts the run's idle safety net.
func (t *runTable) armIdleLocked(r *runState) {
	idle := t.idleTimeout
	r.timer = time.AfterFunc(idle, func() { t.checkIdle(r, idle) })
}

func (t *runTable) checkIdle(r *runState, idle time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.ended || r.awaitingReply {
		return
	}
	if left := idle - time.Since(r.touched); left > 0 {
		r.timer.Reset(left)
		return
	}
	t.log.Warn("run ended: no hook of its turn", "run", r.id, "idle", idle)
	t.endLostLocked(r)
}

// awaitReplyLocked waits for the final reply of a turn Hermes reported
// completed. The reply's send() completes the run with its text
// (finalReply); without one, the run completes with the text it streamed
// after FinalReplyWait, and a reply that comes later is dropped as its
// duplicate.
func (t *runTable) awaitReplyLocked(r *runState) {
	r.awaitingReply = true
	if r.timer != nil {
		r.timer.Stop()
	}
	r.timer = time.AfterFunc(t.finalReplyWait, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if r.ended {
			return
		}
		t.completeLocked(r, lmp.RunStatusCompleted, r.bestText(), true)
		if c, ok := t.chats[r.chat]; ok && c.open == nil {
			c.unreplied = r.id
		}
	})
}

// finalReply takes a send() with metadata notify=true into chat as the
// final reply of the chat's turn (note 20): it completes the unfinished
// run with its text, or is dropped as the duplicate of a run that already
// completed without it. It reports false when the chat has no such run.
func (t *runTable) finalReply(chat, text string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.chats[chat]
	switch {
	case !ok:
		return false
	case c.open != nil:
		r := c.open
		t.startLocked(r)
		t.completeLocked(r, lmp.RunStatusCompleted, text, true)
		return true
	case c.unreplied != "":
		c.unreplied = ""
		return true
	}
	return false
}

// cancelChat ends the chat's unfinished run as cancelled, unless its turn
// already completed and only its final reply is awaited.
func (t *runTable) cancelChat(chat string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.chats[chat]; ok && c.open != nil && !c.open.awaitingReply {
		r := c.open
		t.startLocked(r)
		t.completeLocked(r, lmp.RunStatusCancelled, r.bestText(), false)
	}
}

// armForkEndLocked ends a fork's run FinalReplyWait after a successful
// model call, unless a later hook of the fork came (then it waits that long
// after it) or a model call of it is streaming (then the idle net watches
// it again). Hermes fires no on_session_end for a fork.
func (t *runTable) armForkEndLocked(r *runState) {
	wait := t.finalReplyWait
	if r.timer != nil {
		r.timer.Stop()
	}
	r.timer = time.AfterFunc(wait, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		switch {
		case r.ended:
		case r.calling:
			t.armIdleLocked(r)
		case time.Since(r.touched) < wait:
			r.timer.Reset(wait - time.Since(r.touched))
		default:
			t.completeLocked(r, lmp.RunStatusCompleted, r.bestText(), true)
		}
	})
}
