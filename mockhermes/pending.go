package mockhermes

import (
	"sort"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// PendingApproval is one approval waiting in the gateway's queue.
type PendingApproval struct {
	ID          string   `json:"approval_id"` // the Hermes request id, the LMP approval_id
	SessionKey  string   `json:"session_key"`
	ChatID      string   `json:"task_id"`
	RunID       string   `json:"run_id,omitempty"`
	Command     string   `json:"command"`
	Description string   `json:"description,omitempty"`
	Choices     []string `json:"choices"` // what the gateway accepts for it
}

// PendingApprovals lists the approvals waiting for an answer, by session
// key, oldest first within a session. Coalesced ones follow their leader
// and are not listed.
func (m *Mock) PendingApprovals() []PendingApproval {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []PendingApproval{}
	for _, q := range m.approvals {
		for _, p := range q {
			if p.settled {
				continue
			}
			out = append(out, PendingApproval{
				ID: p.id, SessionKey: p.sessionKey, ChatID: p.spec.ChatID, RunID: p.spec.RunID,
				Command: p.spec.Command, Description: p.spec.Description, Choices: gatewayChoices(p.spec),
			})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SessionKey < out[j].SessionKey })
	return out
}

// gatewayChoices are the answers send_exec_approval offers for s: "session"
// needs allow_session, "always" allow_permanent too, and a smart-denied
// command gets only once and deny.
func gatewayChoices(s ApprovalSpec) []string {
	choices := []string{lmp.ChoiceOnce}
	if s.AllowSession && !s.SmartDenied {
		choices = append(choices, lmp.ChoiceSession)
		if s.AllowPermanent {
			choices = append(choices, lmp.ChoiceAlways)
		}
	}
	return append(choices, lmp.ChoiceDeny)
}

// ResolveLocally answers a pending approval at the gateway itself, as the
// user at Hermes' own terminal does: the adapter is not involved and is
// told only by post_approval_response, which makes it decided_by local.
// Nothing is recorded as an adapter call. It reports whether the approval
// was pending.
func (m *Mock) ResolveLocally(requestID, choice string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, q := range m.approvals {
		for _, p := range q {
			if p.id == requestID && !p.settled {
				m.settleLocked(p, outcome{choice: choice})
				return true
			}
		}
	}
	return false
}
