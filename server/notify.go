package server

import (
	"context"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Send is the adapter's outbound send() (H-4): cron results, background
// output, board updates and gateway notices become notification frames.
// Metadata keys read: category (result|diagnostic), title, source,
// requires_attention.
func (s *Server) Send(ctx context.Context, chatID, content string, metadata map[string]any) SendResult {
	m := kwargs(metadata)
	n := lmp.Notification{Category: lmp.CategoryResult, Text: content, Source: "gateway"}
	if c, _ := m.str("category"); c == lmp.CategoryDiagnostic {
		n.Category = c
	}
	if t, _ := m.str("title"); t != "" {
		n.Title = t
	}
	if src, _ := m.str("source"); src != "" {
		n.Source = src
	}
	n.RequiresAttention, _ = m.boolean("requires_attention")
	var task *string
	if chatID != "" {
		task = &chatID
	}
	// Enforces H-4: the adapter's outbound send() becomes a notification frame.
	s.publish(lmp.TypeNotification, task, nil, n)
	return SendResult{Success: true, MessageID: randomID("msg_")}
}
