package mockhermes

import "sort"

// PendingApproval is one approval waiting in the gateway's queue.
type PendingApproval struct {
	ID          string   `json:"approval_id"` // the Hermes request id, the LMP approval_id
	SessionKey  string   `json:"session_key"`
	ChatID      string   `json:"task_id"`
	RunID       string   `json:"run_id,omitempty"`
	Command     string   `json:"command"`
	Description string   `json:"description,omitempty"`
	Choices     []string `json:"choices"`
}

// PendingApprovals lists the approvals waiting for an answer, by session
// key, oldest first within a session.
func (m *Mock) PendingApprovals() []PendingApproval {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []PendingApproval{}
	for _, q := range m.approvals {
		for _, p := range q {
			pa := PendingApproval{
				ID: p.id, SessionKey: p.sessionKey, ChatID: p.spec.ChatID, RunID: p.spec.RunID,
				Command: p.spec.Command, Description: p.spec.Description,
			}
			for _, c := range choicesFor(p.spec) {
				pa.Choices = append(pa.Choices, c.Choice)
			}
			out = append(out, pa)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SessionKey < out[j].SessionKey })
	return out
}

// ResolveLocally answers a pending approval at the gateway itself, as the
// user at Hermes' own terminal does: the adapter is not involved and is
// told only by post_approval_response, which makes it decided_by local.
// Nothing is recorded as an adapter call. It reports whether the approval
// was pending.
func (m *Mock) ResolveLocally(requestID, choice string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, q := range m.approvals {
		for i, p := range q {
			if p.id != requestID {
				continue
			}
			if q = append(q[:i:i], q[i+1:]...); len(q) == 0 {
				delete(m.approvals, key)
			} else {
				m.approvals[key] = q
			}
			p.done <- choice
			return true
		}
	}
	return false
}
