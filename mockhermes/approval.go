package mockhermes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// Outcomes of an approval wait besides the user's own choices, as Hermes
// names them in post_approval_response.
const (
	ChoiceTimeout      = "timeout"
	ChoiceCancelled    = "cancelled"
	ChoiceNotifyFailed = "notify_failed"
	ChoiceSmartApprove = "smart_approve"
	ChoiceSmartDeny    = "smart_deny"
)

// Causes a cancelled approval reports (post_approval_response cancelled=).
const (
	CancelInterrupt = "interrupt"  // /stop, a busy interrupt, /new
	CancelTurnEnded = "turn_ended" // its turn ended while it waited
)

// ApprovalSpec is one exec approval Hermes asks for (send_exec_approval's
// arguments and the approval hooks' kwargs).
type ApprovalSpec struct {
	ChatID         string
	Command        string
	Description    string
	PatternKey     string
	AllowPermanent bool
	AllowSession   bool
	SmartDenied    bool
	Timeout        time.Duration // the mock's ApprovalTimeout when zero
	// The turn the approval belongs to, as the approval hooks name it;
	// empty for an approval outside a turn. SessionID defaults to the
	// chat's current session.
	TurnID, ToolCallID, SessionID string
	// RunID is the reference server's run id (run_<turn_id>) the driver
	// API takes; it gives TurnID when that is empty.
	RunID string
}

// outcome is how an approval wait ended.
type outcome struct {
	choice string
	cause  string // for ChoiceCancelled
}

// approval is a pending entry of tools/approval.py's gateway queue.
type approval struct {
	id         string
	sessionKey string
	spec       ApprovalSpec
	kw         hermes.Approval // what both approval hooks carry
	deadline   time.Time
	done       chan outcome  // receives the outcome once, buffered
	reported   chan struct{} // closed once post_approval_response has fired
	followers  []*approval   // coalesced onto this one
	follower   bool
	settled    bool
}

// Granted reports whether Hermes lets a command run after choice: deny (or
// nothing) blocks, anything else grants. The choice is not validated (F-8).
func Granted(choice string) bool {
	switch choice {
	case "", lmp.ChoiceDeny, ChoiceTimeout, ChoiceCancelled, ChoiceSmartDeny, ChoiceNotifyFailed:
		return false
	}
	return true
}

// approvalKwargs are the kwargs both approval hooks carry.
func (m *Mock) approvalKwargs(s ApprovalSpec, sessionKey, surface string) hermes.Approval {
	pattern := s.PatternKey
	if pattern == "" {
		pattern = patternOf(s.Command)
	}
	return hermes.Approval{
		Command: s.Command, Description: s.Description,
		PatternKey: pattern, PatternKeys: []string{pattern},
		SessionKey: sessionKey, Surface: surface,
		TurnID: s.TurnID, ToolCallID: s.ToolCallID, SessionID: s.SessionID,
	}
}

// patternOf imitates Hermes' dangerous-pattern key: the command's first word.
func patternOf(cmd string) string {
	if f := strings.Fields(cmd); len(f) > 0 {
		return f[0]
	}
	return "command"
}

// promptText is the plain-text approval prompt the gateway sends when the
// adapter has no buttons, or when the button prompt failed.
func promptText(s ApprovalSpec) string {
	return "⚠️ Approval required: `" + s.Command + "` (" + s.Description + "). Reply /approve or /deny."
}

// StartApproval asks for an exec approval the way the gateway does: it
// queues the entry, fires pre_approval_request and asks the adapter, with
// buttons (send_exec_approval) when supports_exec_approval_buttons() says
// so, else as text through send(). It waits up to the prompt timeout for
// the prompt's outcome: sent, or no answer (possibly delivered: no resend,
// no fallback), or failed (a text fallback; if that fails too the approval
// ends with notify_failed). An approval identical to a pending one of the
// same session coalesces onto it: pre_approval_request coalesced=True, no
// prompt, the leader's outcome. Wait then waits for the outcome.
func (m *Mock) StartApproval(ctx context.Context, s ApprovalSpec) (*Approval, error) {
	aps, err := m.startApprovals(ctx, []ApprovalSpec{s})
	if err != nil {
		return nil, err
	}
	return aps[0], nil
}

// startApprovals asks for approvals that tool calls running at the same
// time request: each is queued (or coalesces onto an identical pending
// one) and announced before any prompt goes out.
func (m *Mock) startApprovals(ctx context.Context, specs []ApprovalSpec) ([]*Approval, error) {
	a := m.getAdapter()
	if a == nil {
		return nil, ErrNotAttached
	}
	ps := make([]*approval, len(specs))
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	for i, s := range specs {
		if s.Command == "" {
			m.mu.Unlock()
			return nil, fmt.Errorf("mockhermes: approval needs a command")
		}
		if s.ChatID == "" {
			m.mu.Unlock()
			return nil, fmt.Errorf("mockhermes: approval needs a chat id")
		}
		if s.Timeout <= 0 {
			s.Timeout = m.opts.ApprovalTimeout
		}
		if s.TurnID == "" {
			s.TurnID, _ = strings.CutPrefix(s.RunID, "run_")
		}
		c := m.chatLocked(s.ChatID)
		if s.SessionID == "" {
			s.SessionID = c.sessionID
		}
		p := &approval{
			id: m.newID("apr_"), sessionKey: c.key, spec: s,
			deadline: time.Now().Add(s.Timeout),
			done:     make(chan outcome, 1), reported: make(chan struct{}),
		}
		p.kw = m.approvalKwargs(s, p.sessionKey, "gateway")
		for _, e := range m.approvals[p.sessionKey] {
			if e.kw.PatternKey == p.kw.PatternKey && e.spec.Command == s.Command {
				p.follower = true
				e.followers = append(e.followers, p)
				break
			}
		}
		if !p.follower {
			// Queued before the prompt goes out, so that an answer racing
			// the prompt finds it (H-5).
			m.approvals[p.sessionKey] = append(m.approvals[p.sessionKey], p)
		}
		ps[i] = p
	}
	m.mu.Unlock()

	out := make([]*Approval, len(ps))
	for i, p := range ps {
		m.fire(ctx, hermes.PreApprovalRequest{Approval: p.kw, Coalesced: p.follower})
		out[i] = &Approval{m: m, p: p}
	}
	for _, p := range ps {
		if !p.follower && !m.prompt(ctx, a, p) {
			m.settle(p, outcome{choice: ChoiceNotifyFailed})
		}
	}
	return out, nil
}

// prompt asks the adapter and reports whether the prompt may have reached
// the user.
func (m *Mock) prompt(ctx context.Context, a hermes.Adapter, p *approval) bool {
	s := p.spec
	text := func() bool {
		res := a.Send(ctx, s.ChatID, promptText(s), map[string]any{"is_approval_prompt": true})
		if !res.Success {
			m.log.Warn("mockhermes: approval text prompt failed", "err", res.Error)
		}
		return res.Success
	}
	if !a.SupportsExecApprovalButtons() {
		return text()
	}
	result := make(chan error, 1)
	if !m.goroutine(func() {
		result <- a.SendExecApprovalPrompt(ctx, hermes.ExecApprovalPrompt{
			ChatID: s.ChatID, Command: s.Command, SessionKey: p.sessionKey,
			Description: s.Description, AllowPermanent: s.AllowPermanent, AllowSession: s.AllowSession,
			SmartDenied: s.SmartDenied, RequestID: p.id,
			Metadata: map[string]any{},
		})
	}) {
		return false
	}
	wait := time.NewTimer(m.opts.PromptTimeout)
	defer wait.Stop()
	select {
	case err := <-result:
		if err == nil {
			return true
		}
		m.log.Warn("mockhermes: approval prompt failed, sending text", "err", err)
		return text()
	case <-wait.C:
		m.log.Info("mockhermes: approval prompt not confirmed in time, counted as possibly delivered", "request_id", p.id)
		return true
	case <-m.ctx.Done():
		return false
	}
}

// Approval is a started approval wait.
type Approval struct {
	m *Mock
	p *approval
}

// ID is the Hermes request_id, which the server uses as the LMP approval_id.
func (ap *Approval) ID() string { return ap.p.id }

// SessionKey is the gateway session key the approval is queued under.
func (ap *Approval) SessionKey() string { return ap.p.sessionKey }

// Coalesced reports whether the approval is a follower of an identical
// pending one.
func (ap *Approval) Coalesced() bool { return ap.p.follower }

// Wait waits for the outcome: the resolving choice, "timeout" when the
// deadline passes, "cancelled" on /stop, at the end of its turn or when ctx
// ends, "notify_failed" when no prompt could be sent. It then fires
// post_approval_response with it, except when the mock is closing, and
// returns the choice.
func (ap *Approval) Wait(ctx context.Context) string {
	defer close(ap.p.reported)
	m := ap.m
	timer := time.NewTimer(time.Until(ap.p.deadline))
	defer timer.Stop()
	var o outcome
	select {
	case o = <-ap.p.done:
		ap.p.done <- o
	case <-timer.C:
		o = m.settle(ap.p, outcome{choice: ChoiceTimeout})
	case <-ctx.Done():
		if c := context.Cause(ctx); errors.Is(c, errInterrupted) || errors.Is(c, errNewSession) {
			// The gateway cancels the session's approvals itself, after
			// telling the adapter.
			select {
			case o = <-ap.p.done:
				ap.p.done <- o
			case <-m.ctx.Done():
				return ChoiceCancelled
			}
			break
		}
		o = m.settle(ap.p, outcome{choice: ChoiceCancelled, cause: CancelInterrupt})
	case <-m.ctx.Done():
		m.settle(ap.p, outcome{choice: ChoiceCancelled})
		return ChoiceCancelled
	}
	if m.ctx.Err() != nil {
		return o.choice
	}
	post := hermes.PostApprovalResponse{Approval: ap.p.kw, Choice: o.choice}
	if o.choice == ChoiceCancelled {
		post.Cancelled = o.cause
	}
	// The hook outlives a cancelled turn: the gateway reports the outcome.
	m.fire(context.WithoutCancel(ctx), post)
	return o.choice
}

// settle ends p with o unless it has ended already, and returns the
// outcome that won. Followers share their leader's outcome.
func (m *Mock) settle(p *approval, o outcome) outcome {
	m.mu.Lock()
	m.settleLocked(p, o)
	m.mu.Unlock()
	won := <-p.done
	p.done <- won // later readers see it too
	return won
}

func (m *Mock) settleLocked(p *approval, o outcome) {
	if p.settled {
		return
	}
	p.settled = true
	q := m.approvals[p.sessionKey]
	if i := slices.Index(q, p); i >= 0 {
		q = slices.Delete(slices.Clone(q), i, i+1)
		if len(q) == 0 {
			delete(m.approvals, p.sessionKey)
		} else {
			m.approvals[p.sessionKey] = q
		}
	}
	p.done <- o
	for _, f := range p.followers {
		m.settleLocked(f, o)
	}
}

// ResolveGatewayApproval is tools.approval.resolve_gateway_approval (H-5):
// expired entries are swept first; the target is the entry named by
// requestID, else every entry with resolveAll, else the oldest (FIFO). It
// returns how many it resolved, 0 when none. The choice is stored
// unvalidated (F-8): deny blocks, anything else grants.
func (m *Mock) ResolveGatewayApproval(ctx context.Context, sessionKey, choice string, resolveAll bool, reason, requestID string) (int, error) {
	args := map[string]any{
		"session_key": sessionKey, "choice": choice, "resolve_all": resolveAll,
		"reason": none(reason), "request_id": none(requestID),
	}
	if h := m.holds.take("resolve_gateway_approval", args); h != nil {
		// Held (driver POST /hold): recorded now, acted on and answered
		// when released, as a call blocked on Hermes' approval lock is.
		seq := m.rec.addHeld("resolve_gateway_approval", args)
		h.wait(ctx, m.ctx)
		n := m.resolveApprovals(sessionKey, choice, resolveAll, requestID)
		m.rec.answered(seq, n)
		return n, nil
	}
	n := m.resolveApprovals(sessionKey, choice, resolveAll, requestID)
	m.rec.add("resolve_gateway_approval", args, n)
	return n, nil
}

// resolveApprovals is resolve_gateway_approval's effect: it settles the
// approvals the call names and returns how many.
func (m *Mock) resolveApprovals(sessionKey, choice string, resolveAll bool, requestID string) int {
	m.mu.Lock()
	now := time.Now()
	for _, p := range slices.Clone(m.approvals[sessionKey]) {
		if now.After(p.deadline) {
			m.settleLocked(p, outcome{choice: ChoiceTimeout})
		}
	}
	q := m.approvals[sessionKey]
	var picked []*approval
	switch {
	case requestID != "":
		for _, e := range q {
			if e.id == requestID {
				picked = []*approval{e}
			}
		}
	case resolveAll:
		picked = slices.Clone(q)
	case len(q) > 0:
		picked = q[:1] // FIFO: the oldest
	}
	for _, p := range slices.Clone(picked) {
		m.settleLocked(p, outcome{choice: choice})
		m.rememberLocked(p, choice)
	}
	m.mu.Unlock()
	return len(picked)
}

// rememberLocked keeps a session or always grant: tools/approval.py
// approves the pattern for the session, or permanently.
func (m *Mock) rememberLocked(p *approval, choice string) {
	pattern := p.kw.PatternKey
	switch choice {
	case lmp.ChoiceSession:
		if m.grantedSession[p.sessionKey] == nil {
			m.grantedSession[p.sessionKey] = map[string]bool{}
		}
		m.grantedSession[p.sessionKey][pattern] = true
	case lmp.ChoiceAlways:
		m.grantedAlways[pattern] = true
	}
}

// preapproved reports whether a command of pattern runs in sessionKey
// without asking: granted for the session or for good before.
func (m *Mock) preapproved(sessionKey, pattern string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.grantedAlways[pattern] || m.grantedSession[sessionKey][pattern]
}

// releaseSession settles every pending approval of sessionKey as cancelled
// with cause, as /stop does, and returns them.
func (m *Mock) releaseSession(sessionKey, cause string) []*approval {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.releaseSessionLocked(sessionKey, cause)
}

func (m *Mock) releaseSessionLocked(sessionKey, cause string) []*approval {
	q := slices.Clone(m.approvals[sessionKey])
	for _, p := range q {
		m.settleLocked(p, outcome{choice: ChoiceCancelled, cause: cause})
	}
	return q
}

// cancelTurnApprovals cancels the approvals of a turn that has ended.
func (m *Mock) cancelTurnApprovals(turnID, cause string) {
	if turnID == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, q := range m.approvals {
		for _, p := range slices.Clone(q) {
			if p.spec.TurnID == turnID {
				m.settleLocked(p, outcome{choice: ChoiceCancelled, cause: cause})
			}
		}
	}
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
