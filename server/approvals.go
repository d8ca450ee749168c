package server

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// maxApprovals bounds the approval table; the oldest are forgotten first,
// after which resolving them answers unknown_approval.
const maxApprovals = 4096

type approvalState struct {
	id, sessionKey, task, run string
	claimedBy                 string // device that won the resolve (M-2)
	claimChoice               string // the choice that device passed to Hermes
	announced                 bool   // approval.resolved sent (once per approval)
	hookSeen                  bool   // its post_approval_response arrived
}

// approvalTable holds approvals. Lock order: approvalTable.mu, then
// Server.mu.
type approvalTable struct {
	mu    sync.Mutex
	byID  map[string]*approvalState
	order []string
}

func newApprovalTable() *approvalTable {
	return &approvalTable{byID: make(map[string]*approvalState)}
}

func (t *approvalTable) addLocked(a *approvalState) {
	t.byID[a.id] = a
	t.order = append(t.order, a.id)
	if len(t.order) > maxApprovals {
		delete(t.byID, t.order[0])
		t.order = t.order[1:]
	}
}

// SendExecApprovalPrompt shows an approval to every device as
// approval.required (H-3). The approval_id is Hermes' request id, passed
// back to resolve_gateway_approval.
func (s *Server) SendExecApprovalPrompt(ctx context.Context, p ExecApprovalPrompt) error {
	id := p.RequestID
	if id == "" {
		id = randomID("apr_")
	}
	task := p.ChatID
	if task == "" {
		task = strings.TrimPrefix(p.SessionKey, SessionKeyPrefix)
	}
	run := p.RunID
	if run == "" {
		run = s.runs.activeRun(task)
	}
	choices := make([]lmp.ApprovalChoice, 0, len(p.Choices))
	for _, a := range p.Choices {
		choices = append(choices, lmp.ApprovalChoice{Label: a.Label, Choice: a.Choice, Style: a.Style})
	}
	if len(choices) == 0 {
		choices = defaultChoices()
	}
	deadline := p.Deadline
	if deadline.IsZero() {
		deadline = time.Now().Add(lmp.DefaultApprovalTimeout)
	}
	a := &approvalState{id: id, sessionKey: p.SessionKey, task: task, run: run}
	var taskRef, runRef *string
	if task != "" {
		taskRef = &task
	}
	if run != "" {
		runRef = &run
	}
	s.approvals.mu.Lock()
	defer s.approvals.mu.Unlock()
	s.approvals.addLocked(a)
	// Enforces H-3: approval.required comes from the exec-approval prompt (approval.resolved: onApprovalResponse).
	s.publish(lmp.TypeApprovalRequired, taskRef, runRef, lmp.ApprovalRequired{
		ApprovalID: id, RunID: runRef, TaskID: taskRef, Command: p.Command, Description: p.Description,
		Choices: choices, SmartDenied: p.SmartDenied, SessionKeyRef: p.SessionKey,
		DeadlineTS: lmp.Timestamp(deadline),
	})
	return nil
}

func defaultChoices() []lmp.ApprovalChoice {
	return []lmp.ApprovalChoice{
		{Label: "Allow once", Choice: lmp.ChoiceOnce, Style: lmp.StylePrimary},
		{Label: "Allow for this session", Choice: lmp.ChoiceSession, Style: lmp.StyleSecondary},
		{Label: "Always allow", Choice: lmp.ChoiceAlways, Style: lmp.StyleSecondary},
		{Label: "Deny", Choice: lmp.ChoiceDeny, Style: lmp.StyleDanger},
	}
}

// resolveApproval is approval.resolve: the first device to claim an
// approval wins (M-2); any later claim gets already_resolved (I-2). The
// winner's choice goes to resolve_gateway_approval unchanged (F-8, H-5).
func (s *Server) resolveApproval(ctx context.Context, deviceID string, p lmp.ApprovalResolve) scoped {
	t := s.approvals
	t.mu.Lock()
	a, ok := t.byID[p.ApprovalID]
	switch {
	case !ok:
		t.mu.Unlock()
		return errorResult(lmp.CodeUnknownApproval, "no approval "+p.ApprovalID, p.RequestID)
	case a.announced || a.claimedBy != "":
		t.mu.Unlock()
		// Enforces I-2: resolving an approval already claimed or resolved answers already_resolved.
		return errorResult(lmp.CodeAlreadyResolved, "approval "+p.ApprovalID+" is already resolved", p.RequestID)
	}
	// Enforces M-2: the first device to claim an approval, under t.mu, is the one that resolves it.
	a.claimedBy, a.claimChoice = deviceID, p.Choice
	t.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, hermesCallTimeout)
	defer cancel()
	choice := p.Choice
	// Enforces H-5: approvals are released through resolve_gateway_approval, with Hermes' request id.
	// Enforces F-8: the client's choice reaches resolve_gateway_approval unchanged.
	n, err := s.hermes.ResolveGatewayApproval(ctx, a.sessionKey, choice, false, p.Reason, a.id)
	if err != nil {
		t.mu.Lock()
		if !a.announced {
			a.claimedBy = "" // let another attempt win
		}
		t.mu.Unlock()
		s.log.Warn("resolve_gateway_approval failed", "approval", a.id, "err", err)
		return errorResult(lmp.CodeHermesUnavailable, "Hermes did not resolve the approval: "+err.Error(), p.RequestID)
	}
	if n == 0 {
		// Hermes no longer waits for it: it timed out or was answered on
		// another surface, and post_approval_response says how.
		return errorResult(lmp.CodeAlreadyResolved, "approval "+p.ApprovalID+" is no longer pending in Hermes", p.RequestID)
	}
	s.announceApproval(a, p.Choice, lmp.DecidedByRemote)
	return approvalAck(a, p.RequestID)
}

// approvalAck is the ack of a won approval.resolve.
func approvalAck(a *approvalState, requestID string) scoped {
	id := a.id
	var taskRef, runRef *string
	if a.task != "" {
		taskRef = &a.task
	}
	if a.run != "" {
		runRef = &a.run
	}
	return scopedOf(lmp.Ack{RequestID: requestID, For: lmp.TypeApprovalResolve, ApprovalID: &id, TaskID: taskRef, RunID: runRef}, taskRef, runRef)
}

// announceApproval sends approval.resolved to every device, once per
// approval (M-3).
func (s *Server) announceApproval(a *approvalState, choice, decidedBy string) {
	s.approvals.mu.Lock()
	defer s.approvals.mu.Unlock()
	if a.announced {
		return
	}
	a.announced = true
	var taskRef, runRef *string
	if a.task != "" {
		taskRef = &a.task
	}
	if a.run != "" {
		runRef = &a.run
	}
	// Enforces M-3: approval.resolved is published to every device, once per approval.
	s.publish(lmp.TypeApprovalResolved, taskRef, runRef, lmp.ApprovalResolved{ApprovalID: a.id, Choice: choice, DecidedBy: decidedBy})
}

// decidedBy maps Hermes' outcome to LMP's decided_by (docs/protocol.md).
func decidedBy(choice string, claimed bool) string {
	switch choice {
	case "timeout":
		return lmp.DecidedByTimeout
	case "smart_approve", "smart_deny", "cancelled", "notify_failed":
		return lmp.DecidedByAgent
	}
	if claimed {
		return lmp.DecidedByRemote
	}
	return lmp.DecidedByLocal
}

// onApprovalResponse is post_approval_response (H-3). Hermes' kwargs name
// the session, not the approval: a request_id (or approval_id) kwarg picks
// the approval when present, otherwise the session's oldest approval not yet
// announced, which is the one Hermes resolves first (FIFO).
func (s *Server) onApprovalResponse(k kwargs) error {
	key, err := k.str("session_key")
	if err != nil {
		return err
	}
	choice, err := k.str("choice")
	if err != nil {
		return err
	}
	id, err := k.str("request_id")
	if err != nil {
		return err
	}
	if id == "" {
		if id, err = k.str("approval_id"); err != nil {
			return err
		}
	}
	t := s.approvals
	t.mu.Lock()
	var a *approvalState
	if id != "" {
		a = t.byID[id]
	} else {
		a = t.hookTargetLocked(key, choice)
	}
	if a == nil {
		t.mu.Unlock()
		return nil
	}
	a.hookSeen = true
	if a.announced {
		t.mu.Unlock()
		return nil
	}
	claimed := a.claimedBy != ""
	t.mu.Unlock()
	s.announceApproval(a, choice, decidedBy(choice, claimed))
	return nil
}

// hookTargetLocked picks the approval a post_approval_response without a
// request id answers, among the session's approvals whose hook has not
// arrived yet. A device's resolve names its approval to Hermes, so a hook
// whose choice is the one a device passed for a claimed approval belongs
// to the oldest such approval; any other outcome (a timeout, a /stop, an
// answer on another surface) belongs to the oldest unclaimed one, which is
// the one Hermes resolves first (FIFO).
func (t *approvalTable) hookTargetLocked(sessionKey, choice string) *approvalState {
	var oldestUnclaimed, oldest *approvalState
	for _, id := range t.order {
		c := t.byID[id]
		if c == nil || c.sessionKey != sessionKey || c.hookSeen {
			continue
		}
		if c.claimedBy != "" && c.claimChoice == choice {
			return c
		}
		if oldestUnclaimed == nil && c.claimedBy == "" {
			oldestUnclaimed = c
		}
		if oldest == nil {
			oldest = c
		}
	}
	if oldestUnclaimed != nil {
		return oldestUnclaimed
	}
	return oldest
}
