package mockhermes

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Playback is one scenario queued or playing in a chat.
type Playback struct {
	// TaskID is the chat (task, session) it plays in.
	TaskID string
	// TurnID is the Hermes turn_id of its turn, "" when the scenario starts
	// no turn (notifications only).
	TurnID string

	sc     *Scenario
	vars   map[string]string
	faults Faults

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set before done closes
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

func (pb *Playback) finish(err error) {
	pb.err = err
	pb.cancel()
	close(pb.done)
}

// PlayOptions tune one playback.
type PlayOptions struct {
	Text   string // the user message that asked for it, as ${text}
	Faults Faults // on top of the mock's own
}

// ErrUnknownScenario is returned for a scenario name that is not loaded.
var ErrUnknownScenario = errors.New("unknown scenario")

// Play queues scenario name with args in chat taskID (a new chat when
// empty). It plays at once when the chat is idle, else after the chat's
// earlier playbacks, like a message to a busy Hermes session.
func (m *Mock) Play(ctx context.Context, name string, args []string, taskID string) (*Playback, error) {
	return m.PlayWith(ctx, name, args, taskID, PlayOptions{})
}

// PlayWith is Play with options.
func (m *Mock) PlayWith(_ context.Context, name string, args []string, taskID string, o PlayOptions) (*Playback, error) {
	m.mu.Lock()
	sc := m.scenarios[name]
	m.mu.Unlock()
	if sc == nil {
		return nil, fmt.Errorf("%w %q; known: %s", ErrUnknownScenario, name, strings.Join(m.ScenarioNames(), ", "))
	}
	vars, err := sc.bindArgs(args)
	if err != nil {
		return nil, err
	}
	if taskID == "" {
		taskID = newID("task_")
	}
	vars["text"] = o.Text
	vars["task_id"], vars["session_id"] = taskID, taskID
	pb := &Playback{
		TaskID: taskID, sc: sc, vars: vars,
		faults: m.opts.Faults.merge(sc.Faults).merge(o.Faults),
		done:   make(chan struct{}),
	}
	if sc.startsRun() {
		pb.TurnID = newID("turn_")
	}
	pb.ctx, pb.cancel = context.WithCancel(m.ctx)
	if err := m.enqueue(pb); err != nil {
		pb.finish(err)
		return nil, err
	}
	return pb, nil
}

// enqueue starts pb in its chat, or queues it behind the running playback.
func (m *Mock) enqueue(pb *Playback) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	s := m.touchSessionLocked(pb.TaskID, "")
	if s.cur != nil {
		s.queue = append(s.queue, pb) // a busy session queues it
		m.mu.Unlock()
		return nil
	}
	s.cur = pb
	m.mu.Unlock()
	if !m.goroutine(func() { m.drain(s, pb) }) {
		m.mu.Lock()
		s.cur = nil
		m.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// drain plays pb and then every playback queued in its chat, in order.
func (m *Mock) drain(s *session, pb *Playback) {
	for pb != nil {
		pb.finish(m.run(pb))
		m.mu.Lock()
		pb = nil
		if len(s.queue) > 0 && !m.closed {
			pb, s.queue = s.queue[0], s.queue[1:]
		}
		s.cur = pb
		if pb == nil {
			for _, q := range s.queue {
				defer q.finish(ErrClosed)
			}
			s.queue = nil
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
	if s := m.sessions[chatID]; s != nil {
		return s.cur
	}
	return nil
}
