package server

import (
	"strings"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/internal/bounded"
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

// maxRuns bounds the run table; the oldest runs are forgotten first.
const maxRuns = 4096

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

// chatState is one of the adapter's chats, which LMP calls a task.
type chatState struct {
	id   string
	open *runState // the chat's unfinished run, if any
	// approvalTurns are the turns of pre_approval_request hooks waiting for
	// their prompt, oldest first.
	approvalTurns []approvalTurn
	// unreplied is a run completed before its final reply came: that reply
	// is dropped as a duplicate when it comes (note 20).
	unreplied string
}

// approvalTurn is the turn and session a pre_approval_request names.
type approvalTurn struct{ turn, session string }

// inboundMessage is a user message the adapter gave Hermes.
type inboundMessage struct {
	text, sender string
	at           time.Time
}

// runTable holds runs, chats and the map from Hermes session ids to chats.
// Its mutex is held while a hook updates a run and publishes the resulting
// frames, so that frames of one run leave in the order of its state
// changes. Lock order: runTable.mu, then approvalTable.mu, then Server.mu.
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
}

func newRunTable() *runTable {
	return &runTable{
		byID:     bounded.New[string, *runState](maxRuns),
		chats:    make(map[string]*chatState),
		sessions: bounded.New[string, string](maxRuns),
		looked:   bounded.New[string, struct{}](maxRuns),
	}
}

// runID is the LMP run_id of a Hermes turn.
func runID(turn string) string { return "run_" + turn }

// chatLocked returns the chat, creating it when new.
func (t *runTable) chatLocked(id string) *chatState {
	if c, ok := t.chats[id]; ok {
		return c
	}
	c := &chatState{id: id}
	t.chats[id] = c
	t.chatList = append(t.chatList, id)
	if len(t.chatList) > maxRuns {
		oldest := t.chatList[0]
		t.chatList = t.chatList[1:]
		if old := t.chats[oldest]; old != nil && old.open != nil {
			t.chatList = append(t.chatList, oldest) // busy: forget it later
		} else {
			delete(t.chats, oldest)
		}
	}
	return c
}

// linkLocked records that Hermes session id runs in chat.
func (t *runTable) linkLocked(session, chat string) {
	if session == "" || chat == "" {
		return
	}
	t.sessions.Put(session, chat)
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

// chatOfSession returns the chat a Hermes session id runs in.
func (t *runTable) chatOfSession(session string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.sessions.Get(session)
	return c, ok
}

// startLocked sends run.started once per run (H-1): at the first hook of
// its turn, whichever that is, so that no frame of a run comes before it.
// Called with runs.mu held.
func (s *Server) startLocked(r *runState) {
	if r.started {
		return
	}
	r.started = true
	surface := r.surface
	if surface == "" {
		surface = hermes.Platform
	}
	s.publish(lmp.TypeRunStarted, &r.chat, &r.id, lmp.RunStarted{
		RunID: r.id, TaskID: r.chat, SessionID: r.session, Surface: surface,
		Model: r.model, Provider: r.provider, StartedAt: lmp.Timestamp(time.Now()),
	})
}

// endLocked marks the run terminal before its terminal frame is sent:
// nothing more is sent for it (note 6). Its approvals still waiting are
// settled first, since Hermes cancels them when the turn ends, so that
// their approval.resolved does not follow the run's end.
func (s *Server) endLocked(r *runState) {
	r.ended = true
	r.awaitingReply = false
	if r.timer != nil {
		r.timer.Stop()
	}
	if c, ok := s.runs.chats[r.chat]; ok && c.open == r {
		c.open = nil
	}
	s.settleRunApprovals(r.id)
	// The table keeps ended runs for lookups only: free what a live run
	// needs (hooks after the end never reach it; the terminal frame's text
	// is taken before this).
	r.streamed, r.finalText = strings.Builder{}, ""
	r.calls, r.finished, r.nextIndex = nil, nil, nil
}

// completeLocked ends the run with run.completed.
func (s *Server) completeLocked(r *runState, status, text string, finished bool) {
	s.endLocked(r)
	s.publish(lmp.TypeRunCompleted, &r.chat, &r.id, lmp.RunCompleted{RunID: r.id, Status: status, Text: text, Finished: finished})
}

// failLocked ends the run with run.failed only (note 6).
func (s *Server) failLocked(r *runState, errText string) {
	s.endLocked(r)
	// Enforces F-4: a turn that ends with a non-empty error sends run.failed.
	s.publish(lmp.TypeRunFailed, &r.chat, &r.id, lmp.RunFailed{RunID: r.id, Error: errText, Status: lmp.RunStatusFailed})
}

// endLostLocked ends a run whose turn's end never came (a newer turn of
// the chat began, or no hook came for RunIdleTimeout): failed when its
// latest model call failed, otherwise completed with finished false and the
// text it streamed (note 17).
func (s *Server) endLostLocked(r *runState) {
	s.startLocked(r)
	if r.callErr != "" {
		s.failLocked(r, r.callErr)
		return
	}
	s.completeLocked(r, lmp.RunStatusCompleted, r.bestText(), false)
}

// armIdleLocked starts the run's idle safety net.
func (s *Server) armIdleLocked(r *runState) {
	idle := s.cfg.RunIdleTimeout
	r.timer = time.AfterFunc(idle, func() { s.checkIdle(r, idle) })
}

func (s *Server) checkIdle(r *runState, idle time.Duration) {
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	if r.ended || r.awaitingReply {
		return
	}
	if left := idle - time.Since(r.touched); left > 0 {
		r.timer.Reset(left)
		return
	}
	s.log.Warn("run ended: no hook of its turn", "run", r.id, "idle", idle)
	s.endLostLocked(r)
}

// awaitReplyLocked waits for the final reply of a turn Hermes reported
// completed. The reply's send() completes the run with its text
// (finalReply); without one, the run completes with the text it streamed
// after FinalReplyWait, and a reply that comes later is dropped as its
// duplicate.
func (s *Server) awaitReplyLocked(r *runState) {
	r.awaitingReply = true
	if r.timer != nil {
		r.timer.Stop()
	}
	r.timer = time.AfterFunc(s.cfg.FinalReplyWait, func() {
		s.runs.mu.Lock()
		defer s.runs.mu.Unlock()
		if r.ended {
			return
		}
		s.completeLocked(r, lmp.RunStatusCompleted, r.bestText(), true)
		if c, ok := s.runs.chats[r.chat]; ok && c.open == nil {
			c.unreplied = r.id
		}
	})
}

// finalReply takes a send() with metadata notify=true into chat as the
// final reply of the chat's turn (note 20): it completes the unfinished
// run with its text, or is dropped as the duplicate of a run that already
// completed without it. It reports false when the chat has no such run.
func (s *Server) finalReply(chat, text string) bool {
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	c, ok := s.runs.chats[chat]
	switch {
	case !ok:
		return false
	case c.open != nil:
		r := c.open
		s.startLocked(r)
		s.completeLocked(r, lmp.RunStatusCompleted, text, true)
		return true
	case c.unreplied != "":
		c.unreplied = ""
		return true
	}
	return false
}
