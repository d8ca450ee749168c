package server

import (
	"context"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/internal/bounded"
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
// Server.mu (taken by publish).
type approvalTable struct {
	mu      sync.Mutex
	byID    *bounded.Map[string, *approvalState] // oldest first
	publish publishFunc
}

func newApprovalTable(publish publishFunc) *approvalTable {
	return &approvalTable{byID: bounded.New[string, *approvalState](maxApprovals), publish: publish}
}

// approvalHook holds what the adapter reads of both approval hooks.
type approvalHook struct {
	key, turn, session, surface string
	coalesced                   bool
}

func approvalHookOf(a hermes.Approval, coalesced bool) approvalHook {
	return approvalHook{key: a.SessionKey, turn: a.TurnID, session: a.SessionID, surface: a.Surface, coalesced: coalesced}
}

// prompted reports whether the hook is of an approval the adapter is asked
// to show: a coalesced follower rides on its leader's prompt, and a smart
// approval (surface "smart") is decided by Hermes' auxiliary model alone.
func (h approvalHook) prompted() bool { return !h.coalesced && h.surface != "smart" }

// SendExecApprovalPrompt shows an approval to every device as
// approval.required (H-3). The approval_id is Hermes' request id, passed
// back to resolve_gateway_approval. Hermes names neither the run nor a
// wall-clock deadline: the run is the turn of the chat's oldest
// pre_approval_request still waiting for its prompt (else the chat's
// unfinished run), and deadline_ts is now + ApprovalTimeout (note 15).
func (s *Server) SendExecApprovalPrompt(ctx context.Context, p hermes.ExecApprovalPrompt) error {
	id := p.RequestID
	if id == "" {
		id = randomID("apr_")
	}
	task := p.ChatID
	if task == "" {
		task, _ = hermes.ChatOfKey(p.SessionKey)
	}
	deadline := time.Now().Add(s.cfg.ApprovalTimeout)
	s.runs.withPromptRun(task, func(run string) {
		s.approvals.require(&approvalState{id: id, sessionKey: p.SessionKey, task: task, run: run}, p, deadline)
	})
	return nil
}

// require adds an approval and shows it to every device.
func (t *approvalTable) require(a *approvalState, p hermes.ExecApprovalPrompt, deadline time.Time) {
	id := a.id
	taskRef, runRef := a.refs()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byID.Put(id, a)
	// Enforces H-3: approval.required comes from the exec-approval prompt (approval.resolved: onApprovalResponse).
	t.publish(lmp.TypeApprovalRequired, taskRef, runRef, lmp.ApprovalRequired{
		ApprovalID: id, RunID: runRef, TaskID: taskRef, Command: p.Command, Description: p.Description,
		Choices: choicesOf(p), SmartDenied: p.SmartDenied, SessionKeyRef: p.SessionKey,
		DeadlineTS: lmp.Timestamp(deadline),
	})
}

// refs returns the approval's task and run as envelope fields.
func (a *approvalState) refs() (taskRef, runRef *string) {
	if a.task != "" {
		taskRef = &a.task
	}
	if a.run != "" {
		runRef = &a.run
	}
	return taskRef, runRef
}

// choicesOf builds the prompt's actions as send_exec_approval narrows
// them: "always" needs allow_permanent, "session" needs allow_session, and
// a smart-denied command offers only once and deny.
func choicesOf(p hermes.ExecApprovalPrompt) []lmp.ApprovalChoice {
	choices := []lmp.ApprovalChoice{{Label: "Allow once", Choice: lmp.ChoiceOnce, Style: lmp.StylePrimary}}
	if p.AllowSession && !p.SmartDenied {
		choices = append(choices, lmp.ApprovalChoice{Label: "Allow for this session", Choice: lmp.ChoiceSession, Style: lmp.StyleSecondary})
	}
	if p.AllowPermanent && p.AllowSession && !p.SmartDenied {
		choices = append(choices, lmp.ApprovalChoice{Label: "Always allow", Choice: lmp.ChoiceAlways, Style: lmp.StyleSecondary})
	}
	return append(choices, lmp.ApprovalChoice{Label: "Deny", Choice: lmp.ChoiceDeny, Style: lmp.StyleDanger})
}

// resolveApproval is approval.resolve: the first device to claim an
// approval wins (M-2); any later claim gets already_resolved (I-2). The
// winner's choice goes to resolve_gateway_approval unchanged (F-8, H-5).
func (s *Server) resolveApproval(ctx context.Context, deviceID string, p lmp.ApprovalResolve) scoped {
	t := s.approvals
	t.mu.Lock()
	a, ok := t.byID.Get(p.ApprovalID)
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
	t.announce(a, p.Choice, lmp.DecidedByRemote)
	return approvalAck(a, p.RequestID)
}

// approvalAck is the ack of a won approval.resolve.
func approvalAck(a *approvalState, requestID string) scoped {
	id := a.id
	taskRef, runRef := a.refs()
	return scopedOf(lmp.Ack{RequestID: requestID, For: lmp.TypeApprovalResolve, ApprovalID: &id, TaskID: taskRef, RunID: runRef}, taskRef, runRef)
}

// announce sends approval.resolved to every device, once per approval
// (M-3).
func (t *approvalTable) announce(a *approvalState, choice, decidedBy string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.announceLocked(a, choice, decidedBy)
}

func (t *approvalTable) announceLocked(a *approvalState, choice, decidedBy string) {
	if a.announced {
		return
	}
	a.announced = true
	taskRef, runRef := a.refs()
	// Enforces M-3: approval.resolved is published to every device, once per approval.
	t.publish(lmp.TypeApprovalResolved, taskRef, runRef, lmp.ApprovalResolved{ApprovalID: a.id, Choice: choice, DecidedBy: decidedBy})
}

// settleRun announces the run's approvals not yet resolved as Hermes
// settles them when the turn ends: cancelled, or the choice a device
// already passed to Hermes. Called when the run ends, with runTable.mu
// held.
func (t *approvalTable) settleRun(run string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range t.byID.All() {
		if a == nil || a.run != run || a.announced {
			continue
		}
		if a.claimedBy != "" {
			t.announceLocked(a, a.claimChoice, lmp.DecidedByRemote)
		} else {
			t.announceLocked(a, choiceCancelled, lmp.DecidedByAgent)
		}
	}
}

// choiceCancelled is Hermes' outcome of an approval whose wait was cut
// short: by /stop, or because its turn ended.
const choiceCancelled = "cancelled"

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

// hookResponse is post_approval_response of a prompted approval, with
// Hermes' outcome (H-3). Hermes' kwargs name the session and the turn,
// not the approval: a request id (id) picks the approval when Hermes
// passes one, otherwise the session's oldest approval not yet answered,
// of the hook's turn when it names one, which is the one Hermes resolves
// first (FIFO).
func (t *approvalTable) hookResponse(h approvalHook, choice, id string) {
	t.mu.Lock()
	var a *approvalState
	if id != "" {
		a, _ = t.byID.Get(id)
	} else {
		a = t.hookTargetLocked(h.key, choice, h.turn)
	}
	if a == nil {
		t.mu.Unlock()
		return
	}
	a.hookSeen = true
	if a.announced {
		t.mu.Unlock()
		return
	}
	claimed := a.claimedBy != ""
	t.mu.Unlock()
	t.announce(a, choice, decidedBy(choice, claimed))
}

// hookTargetLocked picks the approval a post_approval_response without a
// request id answers, among the session's approvals whose hook has not
// arrived yet. A device's resolve names its approval to Hermes, so a hook
// whose choice is the one a device passed for a claimed approval belongs
// to the oldest such approval; any other outcome (a timeout, a /stop, an
// answer on another surface) belongs to the oldest unclaimed one, which is
// the one Hermes resolves first (FIFO).
func (t *approvalTable) hookTargetLocked(sessionKey, choice, turn string) *approvalState {
	var oldestUnclaimed, oldest *approvalState
	run := ""
	if turn != "" {
		run = runID(turn)
	}
	for _, c := range t.byID.All() {
		if c == nil || c.sessionKey != sessionKey || c.hookSeen || (run != "" && c.run != "" && c.run != run) {
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

// SupportsExecApprovalButtons is true: the LMP adapter shows approvals as
// approval.required with choices (H-3), never as text.
func (s *Server) SupportsExecApprovalButtons() bool { return true }
