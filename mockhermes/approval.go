package mockhermes

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// Outcomes of an approval wait besides the user's own choices, as Hermes
// names them in post_approval_response.
const (
	ChoiceTimeout   = "timeout"
	ChoiceCancelled = "cancelled"
)

// ApprovalSpec is one exec approval Hermes asks for (send_exec_approval's
// arguments).
type ApprovalSpec struct {
	ChatID         string
	RunID          string
	Command        string
	Description    string
	PatternKey     string
	AllowPermanent bool
	AllowSession   bool
	SmartDenied    bool
	Timeout        time.Duration // the mock's ApprovalTimeout when zero
}

// approval is a pending entry of tools/approval.py's gateway queue.
type approval struct {
	id         string
	sessionKey string
	spec       ApprovalSpec
	done       chan string   // receives the outcome once, buffered
	reported   chan struct{} // closed once post_approval_response has fired
}

// Granted reports whether Hermes lets a command run after choice: deny (or
// nothing) blocks, anything else grants. The choice is not validated (F-8).
func Granted(choice string) bool {
	switch choice {
	case "", lmp.ChoiceDeny, ChoiceTimeout, ChoiceCancelled, "smart_deny", "notify_failed":
		return false
	}
	return true
}

func (s ApprovalSpec) hookKwargs(sessionKey string) map[string]any {
	pattern := s.PatternKey
	if pattern == "" {
		pattern = patternOf(s.Command)
	}
	surface := "gateway"
	if s.SmartDenied {
		surface = "smart"
	}
	kw := map[string]any{
		"command": s.Command, "description": s.Description,
		"pattern_key": pattern, "pattern_keys": []string{pattern},
		"session_key": sessionKey, "surface": surface,
	}
	// The approval hooks name their turn (turn_id, tool_call_id,
	// session_id); the mock's gateway turns run with session_id == chat.
	kw["turn_id"], kw["tool_call_id"], kw["session_id"] = nil, nil, s.ChatID
	if turn, ok := strings.CutPrefix(s.RunID, "run_"); ok {
		kw["turn_id"] = turn
	}
	return kw
}

// patternOf imitates Hermes' dangerous-pattern key: the command's first word.
func patternOf(cmd string) string {
	if f := strings.Fields(cmd); len(f) > 0 {
		return f[0]
	}
	return "command"
}

// StartApproval asks for an exec approval the way the gateway does: it
// queues the entry, fires pre_approval_request and shows the prompt through
// the adapter's _send_exec_approval_prompt. It returns once the prompt was
// delivered; Wait then waits for the outcome.
func (m *Mock) StartApproval(ctx context.Context, s ApprovalSpec) (*Approval, error) {
	if s.Command == "" {
		return nil, fmt.Errorf("mockhermes: approval needs a command")
	}
	if s.ChatID == "" {
		return nil, fmt.Errorf("mockhermes: approval needs a chat id")
	}
	a := m.getAdapter()
	if a == nil {
		return nil, ErrNotAttached
	}
	if s.Timeout <= 0 {
		s.Timeout = m.opts.ApprovalTimeout
	}
	m.touchSession(s.ChatID, "")
	p := &approval{id: newID("apr_"), sessionKey: SessionKey(s.ChatID), spec: s, done: make(chan string, 1), reported: make(chan struct{})}
	deadline := time.Now().Add(s.Timeout)

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	// Queued before the prompt goes out, so that an answer racing the
	// prompt finds it (H-5).
	m.approvals[p.sessionKey] = append(m.approvals[p.sessionKey], p)
	m.mu.Unlock()

	m.hook(ctx, "pre_approval_request", s.hookKwargs(p.sessionKey))
	text := "Approval required: " + s.Command + " (reply /approve or /deny)"
	if !a.SupportsExecApprovalButtons() {
		a.Send(ctx, s.ChatID, text, map[string]any{"is_approval_prompt": true})
		return &Approval{m: m, p: p, deadline: deadline}, nil
	}
	err := a.SendExecApprovalPrompt(ctx, server.ExecApprovalPrompt{
		ChatID: s.ChatID, Command: s.Command, SessionKey: p.sessionKey,
		Description: s.Description, AllowPermanent: s.AllowPermanent, AllowSession: s.AllowSession,
		SmartDenied: s.SmartDenied, RequestID: p.id,
	})
	if err != nil {
		// Hermes falls back to a plain text message and keeps waiting.
		m.log.Warn("mockhermes: approval prompt failed, sending text", "err", err)
		a.Send(ctx, s.ChatID, text, map[string]any{"is_approval_prompt": true})
	}
	return &Approval{m: m, p: p, deadline: deadline}, nil
}

// Approval is a started approval wait.
type Approval struct {
	m        *Mock
	p        *approval
	deadline time.Time
}

// ID is the Hermes request_id, which the server uses as the LMP approval_id.
func (ap *Approval) ID() string { return ap.p.id }

// SessionKey is the gateway session key the approval is queued under.
func (ap *Approval) SessionKey() string { return ap.p.sessionKey }

// Wait waits for the outcome: the resolving choice, "timeout" when the
// deadline passes, or "cancelled" on /stop or when ctx ends. It then fires
// post_approval_response with it, except when the mock is closing.
func (ap *Approval) Wait(ctx context.Context) string {
	defer close(ap.p.reported)
	timer := time.NewTimer(time.Until(ap.deadline))
	defer timer.Stop()
	var choice string
	select {
	case choice = <-ap.p.done:
	case <-timer.C:
		choice = ap.m.settle(ap.p, ChoiceTimeout)
	case <-ctx.Done():
		choice = ap.m.settle(ap.p, ChoiceCancelled)
		if ap.m.ctx.Err() != nil {
			return choice
		}
	case <-ap.m.ctx.Done():
		ap.m.settle(ap.p, ChoiceCancelled)
		return ChoiceCancelled
	}
	kw := ap.p.spec.hookKwargs(ap.p.sessionKey)
	kw["choice"] = choice
	// The hook outlives a cancelled turn: the gateway reports the outcome.
	ap.m.hook(context.WithoutCancel(ctx), "post_approval_response", kw)
	return choice
}

// settle removes p from its queue with outcome, unless someone else settled
// it first; it returns the outcome that won.
func (m *Mock) settle(p *approval, outcome string) string {
	m.mu.Lock()
	q := m.approvals[p.sessionKey]
	for i, e := range q {
		if e == p {
			m.approvals[p.sessionKey] = append(q[:i:i], q[i+1:]...)
			p.done <- outcome
			break
		}
	}
	if len(m.approvals[p.sessionKey]) == 0 {
		delete(m.approvals, p.sessionKey)
	}
	m.mu.Unlock()
	return <-p.done
}

// ResolveGatewayApproval is tools.approval.resolve_gateway_approval (H-5).
func (m *Mock) ResolveGatewayApproval(ctx context.Context, sessionKey, choice string, resolveAll bool, reason, requestID string) (int, error) {
	m.mu.Lock()
	q := m.approvals[sessionKey]
	var picked []*approval
	switch {
	case requestID != "":
		for i, e := range q {
			if e.id == requestID {
				picked = []*approval{e}
				q = append(q[:i:i], q[i+1:]...)
				break
			}
		}
	case resolveAll:
		picked, q = q, nil
	case len(q) > 0:
		picked, q = q[:1], q[1:] // FIFO: the oldest
	}
	if len(q) == 0 {
		delete(m.approvals, sessionKey)
	} else {
		m.approvals[sessionKey] = q
	}
	for _, p := range picked {
		p.done <- choice // F-8: passed unchanged; Granted decides
	}
	m.mu.Unlock()

	m.rec.add("resolve_gateway_approval", map[string]any{
		"session_key": sessionKey, "choice": choice, "resolve_all": resolveAll,
		"reason": none(reason), "request_id": none(requestID),
	}, len(picked))
	return len(picked), nil
}

// releaseSession settles every pending approval of sessionKey as cancelled,
// as /stop does, and returns them.
func (m *Mock) releaseSession(sessionKey string) []*approval {
	m.mu.Lock()
	q := m.approvals[sessionKey]
	delete(m.approvals, sessionKey)
	for _, p := range q {
		p.done <- ChoiceCancelled
	}
	m.mu.Unlock()
	return q
}

// reportWait bounds how long /stop waits for a released approval's waiter
// to report it before firing agent_loop_stopped anyway.
const reportWait = 5 * time.Second

// awaitReported waits until each released approval's post_approval_response
// has fired, so that agent_loop_stopped comes after them, as in Hermes.
func (m *Mock) awaitReported(ps []*approval) {
	timer := time.NewTimer(reportWait)
	defer timer.Stop()
	for _, p := range ps {
		select {
		case <-p.reported:
		case <-timer.C:
			return // nobody is waiting on it
		case <-m.ctx.Done():
			return
		}
	}
}

// Pending returns the request ids of the approvals waiting in sessionKey,
// oldest first.
func (m *Mock) Pending(sessionKey string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for _, p := range m.approvals[sessionKey] {
		ids = append(ids, p.id)
	}
	return ids
}
