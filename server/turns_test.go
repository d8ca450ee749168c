package server_test

import (
	"context"
	"testing"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// chatRow is a session-store row of a Loomi chat, with its origin.
func chatRow(session, chat string) hermes.SessionRow {
	return hermes.SessionRow{ID: session, Source: hermes.Platform,
		Origin: hermes.SessionOrigin{Platform: hermes.Platform, ChatID: chat, ChatType: "dm"}}
}

// sessionEndWith is on_session_end with Hermes' failed and turn_exit_reason.
func (h hermesTurn) sessionEndWith(completed, failed, interrupted bool, reason string) {
	hook(h.e, "on_session_end", hermes.Encode(hermes.OnSessionEnd{SessionID: h.session, TaskID: h.task, TurnID: h.turn,
		Completed: completed, Failed: failed, Interrupted: interrupted, TurnExitReason: reason, Model: "m", Platform: h.platform}))
}

// A turn belongs to a Loomi chat when its session is that chat's, whatever
// started it: the session store's row names the chat as its origin (note
// 22). Hermes rewrites the phone's text before pre_llm_call (a reply
// quote, an image description, a transcript) and starts turns of its own
// (/retry, a queued follow-up, a process notice, the resume after a
// restart), so matching the text the adapter sent misses them. The row
// outlives a restart of the adapter: a server that never handled the
// chat's messages shows the chat's turns too.
func TestTurnsOfAChatWhateverStartedThem(t *testing.T) { // note 22, H-1
	e := newEnv(t)
	c, dev := e.pair()
	first := chatTurn(t, e, c, dev, "", "s_first", "t_first")
	first.answer("hi")
	first.reply("hi")
	wantTypes(t, runFrames(t, c, "run_t_first"), "run.started", "run.completed")

	// The phone's next message, quoted and rewritten, in a new session of
	// the same chat (after /new): the adapter's hint does not match.
	e.hermes.setSessions(chatRow("s_rewritten", first.chat), chatRow("s_restart", "chat_before_restart"))
	rid := "rq-quote"
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "and this?", TaskID: &first.chat, RequestID: rid}); err != nil {
		t.Fatal(err)
	}
	expectType[lmp.Ack](t, c)
	quoted := hermesTurn{e: e, turn: "t_quoted", session: "s_rewritten", chat: first.chat, surface: hermes.Platform,
		platform: hermes.Platform, task: "s_rewritten", sender: dev.ID,
		message: "[Replying to: \"hi\"]\n\nand this?"}
	quoted.preLLMCall()
	quoted.answer("quoted answer")
	quoted.reply("quoted answer")
	fs := runFrames(t, c, "run_t_quoted")
	wantTypes(t, fs, "run.started", "run.completed")
	if st := decode[lmp.RunStarted](t, fs[0]); st.TaskID != first.chat {
		t.Fatalf("run.started task_id %q, want the chat %q", st.TaskID, first.chat)
	}

	// /retry in that session: no message from the adapter at all.
	retry := quoted
	retry.turn, retry.message = "t_retry", "and this?"
	retry.preLLMCall()
	retry.answer("again")
	retry.reply("again")
	wantTypes(t, runFrames(t, c, "run_t_retry"), "run.started", "run.completed")

	// The resume after a gateway restart, in a chat this server never
	// handled a message of (its links were lost with its memory).
	resume := hermesTurn{e: e, turn: "t_resume", session: "s_restart", chat: "chat_before_restart", surface: hermes.Platform,
		platform: hermes.Platform, task: "s_restart",
		message: "[System note: The previous turn was interrupted by a gateway restart.]"}
	resume.preLLMCall()
	resume.answer("resumed")
	resume.reply("resumed")
	fs = runFrames(t, c, "run_t_resume")
	if st := decode[lmp.RunStarted](t, fs[0]); st.TaskID != "chat_before_restart" {
		t.Fatalf("run.started task_id %q, want chat_before_restart", st.TaskID)
	}
	quiet(t, e, c, "")
	if n := len(e.hermes.callsNamed("get_session")); n != 3 {
		t.Errorf("get_session called %d times for three new sessions, want each looked up once", n)
	}
}

// A fork shares the chat's session id with a turn_id of its own and fires
// neither pre_llm_call nor on_session_end (/btw mid-turn, the background
// review after a turn). It never ends the chat's run nor takes its hooks,
// and it is not shown as a run (note 22, docs/protocol.md); what it
// delivers through send() reaches the phone once, as a notification.
func TestForkNeverBreaksTheRun(t *testing.T) { // note 22, note 6
	e, c, h := newChatTurn(t, "s_main", "t_main")
	h.start(1)
	h.delta(1, "working ")

	playBtwFork(e, h)

	h.delta(1, "on it")
	h.end(1, "working on it", nil)
	h.sessionEnd(true, false)
	h.reply("working on it")
	fs := runFrames(t, c, "run_t_main")
	wantTypes(t, fs, "run.started", "run.delta", "run.delta", "run.completed")
	if done := decode[lmp.RunCompleted](t, fs[3]); done.Status != lmp.RunStatusCompleted || done.Text != "working on it" {
		t.Fatalf("run.completed %+v", done)
	}

	// The background review right after the turn.
	review := h
	review.turn = "t_review"
	review.start(1)
	review.preTool("memory", "call_mem")
	review.postTool("memory", "call_mem", "ok", 3)
	review.end(1, "", nil)

	notes := 0
	for _, f := range c.Pending() {
		if f.Type == lmp.TypeNotification {
			notes++
		}
		if r := lmp.Deref(f.RunID); r == "run_t_btw" || r == "run_t_review" {
			t.Fatalf("a fork shown as a run: %s", f.Raw)
		}
	}
	quiet(t, e, c, "run_t_btw")
	quiet(t, e, c, "run_t_review")
	if notes > 1 {
		t.Fatalf("the /btw answer reached the phone %d times", notes)
	}
}

// Subagents (parent_session_id), /background runs (their own bg_ session
// with the chat's origin), cron and other platforms are never shown as
// runs, even when their session row names a Loomi chat (note 22, note 19).
func TestDetachedSessionsAreNotShown(t *testing.T) { // note 22, note 19
	e := newEnv(t)
	c, _ := e.pair()
	sub := chatRow("s_sub", "chat_1")
	sub.ParentSessionID = "s_parent"
	cron := chatRow("cron_job_1", "chat_1")
	cron.Source, cron.Origin.Platform = "cron", "cron"
	e.hermes.setSessions(sub, chatRow(hermes.BackgroundSessionPrefix+"1", "chat_1"), cron)
	for _, h := range []hermesTurn{
		{e: e, turn: "t_sub", session: "s_sub", task: "sa-1", surface: hermes.Platform, platform: hermes.Platform},
		{e: e, turn: "t_bg", session: hermes.BackgroundSessionPrefix + "1", surface: hermes.Platform, platform: hermes.Platform},
		{e: e, turn: "t_cron", session: "cron_job_1", surface: "cron", platform: "cron"},
	} {
		if h.task == "" {
			h.task = h.session
		}
		h.message = "summarise the logs"
		h.preLLMCall()
		h.answer("done")
	}
	quiet(t, e, c, "")
}

// on_session_end's failed and turn_exit_reason end the run: a turn that
// stopped short of an answer without an error completes unfinished; a
// failed turn whose calls reported no error fails with Hermes' reason.
func TestTurnEndUsesFailedAndExitReason(t *testing.T) { // F-4, note 17
	e := newEnv(t)
	c, dev := e.pair()
	limit := chatTurn(t, e, c, dev, "", "s_limit", "t_limit")
	limit.start(1)
	limit.delta(1, "partial")
	limit.end(1, "partial", nil)
	limit.sessionEndWith(false, false, false, "max_iterations_reached")
	fs := runFrames(t, c, "run_t_limit")
	wantTypes(t, fs, "run.started", "run.delta", "run.completed")
	if done := decode[lmp.RunCompleted](t, fs[2]); done.Status != lmp.RunStatusCompleted || done.Finished || done.Text != "partial" {
		t.Fatalf("a turn stopped by its iteration limit: %+v", done)
	}

	failed := chatTurn(t, e, c, dev, limit.chat, "s_limit", "t_failed")
	failed.start(1)
	failed.sessionEndWith(false, true, false, "error(context_overflow)")
	fs = runFrames(t, c, "run_t_failed")
	wantTypes(t, fs, "run.started", "run.failed")
	if f := decode[lmp.RunFailed](t, fs[1]); f.Error != "the turn ended: error(context_overflow)" {
		t.Fatalf("run.failed error %q", f.Error)
	}
}

// playBtwFork plays a /btw fork beside h's turn, as Hermes runs one: the
// chat's session, its own turn_id "t_btw", stream hooks but no
// pre_llm_call or on_session_end, and its answer through send().
func playBtwFork(e *env, h hermesTurn) {
	btw := h
	btw.turn = "t_btw"
	btw.start(1)
	btw.delta(1, "side answer")
	btw.end(1, "side answer", nil)
	e.srv.Send(context.Background(), h.chat, "side answer", nil)
}
