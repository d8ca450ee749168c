package mockhermes

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Playback is one scenario queued or playing in a chat.
type Playback struct {
	// TaskID is the chat it plays in: the adapter's chat id.
	TaskID string
	// SessionID is the session-store id its turn runs in (task_id and
	// session_id of its hooks), the chat's current session.
	SessionID string
	// TurnID is the Hermes turn_id of its turn, "" when the scenario starts
	// no turn (notifications only).
	TurnID string

	sc     *Scenario
	vars   map[string]string
	faults Faults
	turn   *turn

	ctx     context.Context
	cancel  context.CancelCauseFunc
	stopAck chan struct{} // closed once the gateway has told the adapter of a stop
	ackOnce sync.Once
	done    chan struct{}
	err     error  // set before done closes
	failure string // the error of the call that failed the turn
}

// RunID is the LMP run_id the reference server gives the playback's turn
// (run_<turn_id>, docs/protocol.md), or "" when it starts none.
func (pb *Playback) RunID() string {
	if pb.TurnID == "" {
		return ""
	}
	return "run_" + pb.TurnID
}

// Done is closed when the playback has ended.
func (pb *Playback) Done() <-chan struct{} { return pb.done }

// Wait waits for the playback to end and returns why it could not play, if
// so: a failing run played as scripted is not an error.
func (pb *Playback) Wait(ctx context.Context) error {
	select {
	case <-pb.done:
		return pb.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ack lets an interrupted turn wind down.
func (pb *Playback) ack() { pb.ackOnce.Do(func() { close(pb.stopAck) }) }

func (pb *Playback) finish(err error) {
	pb.err = err
	pb.cancel(nil)
	close(pb.done)
}

// PlayOptions tune one playback.
type PlayOptions struct {
	Text   string // the user message that asked for it, as ${text}
	Faults Faults // on top of the mock's own
	// SenderID is the user id of the message's source (pre_llm_call's
	// sender_id).
	SenderID string
}

// ErrUnknownScenario is returned for a scenario name that is not loaded.
var ErrUnknownScenario = errors.New("unknown scenario")

// Play queues scenario name with args in chat chatID (a new chat when
// empty). It plays at once when the chat is idle, else after the chat's
// earlier playbacks.
func (m *Mock) Play(ctx context.Context, name string, args []string, chatID string) (*Playback, error) {
	return m.PlayWith(ctx, name, args, chatID, PlayOptions{})
}

// PlayWith is Play with options.
func (m *Mock) PlayWith(_ context.Context, name string, args []string, chatID string, o PlayOptions) (*Playback, error) {
	pb, err := m.prepare(name, args, chatID, o)
	if err != nil {
		return nil, err
	}
	if err := m.enqueue(pb, false); err != nil {
		pb.finish(err)
		return nil, err
	}
	return pb, nil
}

// prepare builds a playback of scenario name in chatID and its turn.
func (m *Mock) prepare(name string, args []string, chatID string, o PlayOptions) (*Playback, error) {
	m.mu.Lock()
	sc := m.scenarios[name]
	m.mu.Unlock()
	if sc == nil {
		sc = modelScenario(name)
	}
	if sc == nil {
		return nil, fmt.Errorf("%w %q; known: %s", ErrUnknownScenario, name, strings.Join(m.ScenarioNames(), ", "))
	}
	vars, err := sc.bindArgs(args)
	if err != nil {
		return nil, err
	}
	if chatID == "" {
		chatID = m.newID("chat_")
	}
	pb := &Playback{
		TaskID: chatID, sc: sc, vars: vars,
		faults:  m.opts.Faults.merge(sc.Faults).merge(o.Faults),
		stopAck: make(chan struct{}),
		done:    make(chan struct{}),
	}
	pb.ctx, pb.cancel = context.WithCancelCause(m.ctx)
	vars["text"], vars["task_id"] = o.Text, chatID
	if !sc.startsRun() {
		m.mu.Lock()
		pb.SessionID = m.chatLocked(chatID).sessionID
		m.mu.Unlock()
		vars["session_id"] = pb.SessionID
		return pb, nil
	}
	t := &turn{
		m: m, pb: pb, out: turnFaults{m: m, f: pb.faults},
		platform: Platform, surface: Platform, chatID: chatID, sessionKey: m.sessionKey(chatID),
		turnID: m.newID("turn_"), model: sc.Model, provider: sc.Provider,
		userMessage: o.Text, senderID: o.SenderID, sendsReplies: true,
	}
	if t.model == "" {
		t.model = DefaultModel
	}
	if t.provider == "" {
		t.provider = DefaultProvider
	}
	pb.TurnID, pb.turn = t.turnID, t
	return pb, nil
}

// enqueue starts pb in its chat, or, when a turn is running there, queues
// it behind; with interrupt it stops the running turn first (a busy
// session in interrupt mode).
func (m *Mock) enqueue(pb *Playback, interrupt bool) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	c := m.chatLocked(pb.TaskID)
	if c.cur != nil {
		if interrupt && c.cur.turn != nil {
			cur := c.cur
			cur.cancel(errInterrupted)
			m.releaseSessionLocked(c.key, CancelInterrupt)
			cur.ack() // nothing to tell the adapter: no /stop
			c.queue = append([]*Playback{pb}, c.queue...)
		} else {
			c.queue = append(c.queue, pb) // a busy session queues it
		}
		m.mu.Unlock()
		return nil
	}
	c.cur = pb
	m.startLocked(c, pb)
	m.mu.Unlock()
	if !m.goroutine(func() { m.drain(c, pb) }) {
		m.mu.Lock()
		c.cur = nil
		m.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// startLocked binds pb's turn to the chat's current session when it starts.
func (m *Mock) startLocked(c *chat, pb *Playback) {
	pb.SessionID = c.sessionID
	pb.vars["session_id"] = c.sessionID
	if t := pb.turn; t != nil {
		t.sessionID = c.sessionID
		t.history = c.history.view()
		if n := len(t.history.msgs); n > 0 && t.userMessage != "" {
			t.history.truncate(n - 1) // the message itself is the turn's input
		}
		t.firstTurn = len(t.history.msgs) == 0 // Hermes: not conversation_history
		c.turns++
	}
}

// drain plays pb and then every playback queued in its chat, in order. A
// playback's done closes under the lock that takes it off the chat, so
// whoever sees it done (a /stop that waits for the turn to wind down, then
// fires agent_loop_stopped) finds the chat idle or running the next one,
// as Hermes' session is no longer running once its agent loop stopped.
func (m *Mock) drain(c *chat, pb *Playback) {
	for pb != nil {
		err := m.run(pb)
		m.mu.Lock()
		pb.finish(err) // closes done; cancel runs no callback on this goroutine
		pb = nil
		if len(c.queue) > 0 && !m.closed {
			pb, c.queue = c.queue[0], c.queue[1:]
			m.startLocked(c, pb)
		}
		c.cur = pb
		if pb == nil {
			for _, q := range c.queue {
				defer q.finish(ErrClosed)
			}
			c.queue = nil
		}
		m.mu.Unlock()
	}
}

// ScenarioNames lists the loaded scenarios, sorted.
func (m *Mock) ScenarioNames() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.scenarios))
	for n := range m.scenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Scenarios returns the loaded scenarios, sorted by name.
func (m *Mock) Scenarios() []*Scenario {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Scenario, 0, len(m.scenarios))
	for _, sc := range m.scenarios {
		out = append(out, sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// current returns the chat's running playback, nil when idle.
func (m *Mock) current(chatID string) *Playback {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.chats[chatID]; c != nil {
		return c.cur
	}
	return nil
}
