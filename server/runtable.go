package server

import (
	"log/slog"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/internal/bounded"
)

// runTable owns the state of Hermes' turns as the adapter shows them: the
// runs, the chats they run in and the map from Hermes session ids to
// chats. Every change of that state is one of its methods; the hooks
// (hooks.go) only decode Hermes' kwargs and call them.
//
// Its mutex is held while a method changes a run and publishes the
// resulting frames, so that the frames of one run leave in the order of
// its state changes. Methods named …Locked expect it held. Lock order:
// runTable.mu, then approvalTable.mu, then Server.mu (taken by publish).
type runTable struct {
	mu       sync.Mutex
	byID     *bounded.Map[string, *runState] // the newest maxRuns runs
	chats    map[string]*chatState
	chatList []string                     // oldest first, for eviction
	sessions *bounded.Map[string, string] // Hermes session id → chat (notes 18, 22)
	inbound  []pendingInbound             // messages waiting for their turn, oldest first
	// looked are the sessions already looked up in the session store,
	// those of no Loomi chat included, so that each is looked up once.
	looked *bounded.Map[string, struct{}]

	// What the table needs of the server, fixed by New.
	publish        publishFunc
	approvals      *approvalTable // settled when their run ends
	log            *slog.Logger
	finalReplyWait time.Duration // Config.FinalReplyWait
	idleTimeout    time.Duration // Config.RunIdleTimeout
	showForks      bool          // Config.ShowForks
}

// publishFunc publishes a durable event to every device (Server.publish).
type publishFunc func(typ string, taskID, runID *string, payload any)

// maxRuns bounds the run table; the oldest runs are forgotten first.
const maxRuns = 4096

func newRunTable(publish publishFunc, approvals *approvalTable, cfg Config) *runTable {
	return &runTable{
		byID:     bounded.New[string, *runState](maxRuns),
		chats:    make(map[string]*chatState),
		sessions: bounded.New[string, string](maxRuns),
		looked:   bounded.New[string, struct{}](maxRuns),
		publish:  publish, approvals: approvals, log: cfg.Logger,
		finalReplyWait: cfg.FinalReplyWait, idleTimeout: cfg.RunIdleTimeout, showForks: cfg.ShowForks,
	}
}

// runID is the LMP run_id of a Hermes turn.
func runID(turn string) string { return "run_" + turn }

// lookup returns the task of a run and whether the run has ended.
func (t *runTable) lookup(runID string) (task string, ended, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.byID.Get(runID)
	if !ok {
		return "", false, false
	}
	return r.chat, r.ended, true
}

// taskIDs appends to dst the task id of each session row: the chat its
// session runs in, or for a session of no known chat its own id. It takes
// the lock once: a task.list folds up to maxTaskList rows.
func (t *runTable) taskIDs(dst []string, rows []hermes.SessionRow) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range rows {
		id := r.ID
		if chat, ok := t.sessions.Get(r.ID); ok {
			id = chat
		}
		dst = append(dst, id)
	}
	return dst
}

// newRunLocked adds the run of a turn in chat.
func (t *runTable) newRunLocked(turn, chat, session string) *runState {
	r := &runState{
		id: runID(turn), turn: turn, chat: chat, session: session,
		nextIndex: make(map[int]int), calls: make(map[string]toolCall), finished: make(map[string]bool),
		touched: time.Now(),
	}
	t.byID.Put(r.id, r)
	return r
}

// runForTurnLocked returns the run of a turn in chat, creating it when
// new. A chat runs one turn at a time: an unfinished run of an older turn
// has lost its end and is ended first (note 17).
func (t *runTable) runForTurnLocked(turn, chat, session string) *runState {
	if r, ok := t.byID.Get(runID(turn)); ok {
		return r
	}
	c := t.chatLocked(chat)
	if c.open != nil {
		t.endLostLocked(c.open)
	}
	r := t.newRunLocked(turn, chat, session)
	c.open, c.unreplied = r, ""
	t.armIdleLocked(r)
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
// fork is a run of its own in the chat instead (forkRunLocked).
func (t *runTable) hookRunLocked(turn, session string) *runState {
	if r, ok := t.byID.Get(runID(turn)); ok && r.session == session {
		return r
	}
	if chat, ok := t.sessions.Get(session); ok && t.showForks {
		return t.forkRunLocked(turn, chat, session)
	}
	return nil
}

// forkRunLocked makes the run of a fork of chat's session (Config.ShowForks):
// a run of the chat that is not the chat's open run, so that it neither
// ends the chat's run nor is ended by the chat's next turn.
func (t *runTable) forkRunLocked(turn, chat, session string) *runState {
	t.chatLocked(chat)
	r := t.newRunLocked(turn, chat, session)
	r.fork = true
	t.armIdleLocked(r)
	return r
}
