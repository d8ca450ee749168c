package server

import (
	"context"
	"strings"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// Send is the adapter's outbound send() (H-4). The final reply of a turn
// (metadata notify=true) completes the chat's run and is not a
// notification (note 20). Every other send becomes a notification: cron
// results, background output, board updates, gateway notices and the
// text fallback of an approval prompt.
func (s *Server) Send(ctx context.Context, chatID, content string, metadata map[string]any) hermes.SendResult {
	m := metadata
	if reply, _ := m["notify"].(bool); reply && chatID != "" && s.runs.finalReply(chatID, content) {
		return hermes.SendResult{Success: true, MessageID: randomID("msg_")}
	}
	var task *string
	if chatID != "" {
		task = &chatID
	}
	// Enforces H-4: the adapter's outbound send() becomes a notification frame.
	s.publish(lmp.TypeNotification, task, nil, notificationOf(content, m))
	return hermes.SendResult{Success: true, MessageID: randomID("msg_")}
}

// Titles and sources of the notifications Hermes gives none for.
const (
	maxTitle             = 60
	approvalPromptTitle  = "Approval required"
	defaultNotifySource  = "gateway"
	approvalNotifySource = "approval"
)

// notificationOf derives a notification from a send(). Hermes passes no
// category, title, source or requires_attention: the adapter derives them
// (note 20). A send whose metadata carries them, as another caller of the
// adapter may, keeps them.
//   - An approval prompt's text fallback (metadata is_approval_prompt) is a
//     diagnostic that requires attention, titled "Approval required": the
//     phone cannot answer it with buttons, since the prompt failed.
//   - Anything else is a result titled with the first line of its text.
func notificationOf(content string, m map[string]any) lmp.Notification {
	n := lmp.Notification{Category: lmp.CategoryResult, Text: content, Source: defaultNotifySource, Title: firstLine(content)}
	if prompt, _ := m["is_approval_prompt"].(bool); prompt {
		n.Category, n.Title, n.Source, n.RequiresAttention = lmp.CategoryDiagnostic, approvalPromptTitle, approvalNotifySource, true
	}
	if c, _ := m["category"].(string); c == lmp.CategoryDiagnostic || c == lmp.CategoryResult {
		n.Category = c
	}
	if t, _ := m["title"].(string); t != "" {
		n.Title = t
	}
	if src, _ := m["source"].(string); src != "" {
		n.Source = src
	}
	if attention, ok := m["requires_attention"].(bool); ok {
		n.RequiresAttention = attention
	}
	return n
}

// firstLine is the first non-empty line of text, at most maxTitle
// characters.
func firstLine(text string) string {
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" {
			return truncate(line, maxTitle)
		}
	}
	return ""
}
