package appclient

import (
	"context"
	"slices"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// action is the lmp_check object of a diagnostic notification (the
// automation contract of `lmp-check app`).
type action struct {
	Action     string `json:"action"`
	Text       string `json:"text"`
	TaskID     string `json:"task_id"`
	ApprovalID string `json:"approval_id"`
	Choice     string `json:"choice"`
	RunID      string `json:"run_id"`
}

// act does what the action asks, as the app's user would through its
// screens. An action the screens no longer offer (resolving a prompt that
// has ended) is not done.
func (c *client) act(ctx context.Context, conn *conn, a action) error {
	c.log.Info("lmp-check asks", "action", a.Action)
	switch a.Action {
	case "send":
		var task *string
		if a.TaskID != "" {
			task = lmp.Ref(a.TaskID)
		}
		c.request(ctx, conn, lmp.SessionSend{TaskID: task, Text: a.Text, RequestID: c.newRequestID()})
	case "resolve":
		p, ok := c.approvals[a.ApprovalID]
		if !ok || p.ended || !slices.Contains(p.choices, a.Choice) {
			c.log.Info("no such prompt on screen: nothing to resolve", "approval_id", a.ApprovalID)
			return nil
		}
		// The prompt leaves the screen once answered: one resolve (C-11).
		p.ended = true
		c.request(ctx, conn, lmp.ApprovalResolve{ApprovalID: a.ApprovalID, Choice: a.Choice, RequestID: c.newRequestID()})
	case "cancel":
		_ = conn.write(ctx, lmp.RunCancel{RunID: a.RunID})
	case "list":
		c.request(ctx, conn, lmp.TaskList{RequestID: c.newRequestID()})
	case "reconnect":
		conn.drop()
		return errReconnect
	case "restart":
		c.store()
		conn.drop()
		return errRestart
	case "pair":
		conn.closeNormally("pairing again")
		return errPair
	}
	return nil
}
