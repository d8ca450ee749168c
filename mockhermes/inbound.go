package mockhermes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// MockCommand is the prefix of an in-band scenario request from the phone.
const MockCommand = "/mock"

// DefaultScenario plays for any message that is not a /mock command.
const DefaultScenario = "reply"

// HandleMessage is BasePlatformAdapter.handle_message (F-5). "/mock
// <scenario> [args]" plays that scenario in the message's chat, "/mock help"
// answers with the scenario list, and any other text plays reply. A busy
// chat queues the message.
func (m *Mock) HandleMessage(ctx context.Context, ev server.MessageEvent) error {
	m.rec.add("handle_message", map[string]any{"event": eventArgs(ev)}, nil)
	chatID := ev.Source.ChatID
	if chatID == "" {
		return errors.New("mockhermes: handle_message: event has no source chat_id")
	}
	if strings.TrimSpace(ev.Text) == server.StopCommand {
		return m.InterruptSession(ctx, SessionKey(chatID), chatID)
	}
	m.touchSession(chatID, ev.Text)

	name, args := DefaultScenario, []string(nil)
	if f := strings.Fields(ev.Text); len(f) > 0 && f[0] == MockCommand {
		if len(f) == 1 || f[1] == "help" {
			m.reply(chatID, "mock help", m.helpText())
			return nil
		}
		name, args = f[1], f[2:]
	}
	_, err := m.PlayWith(ctx, name, args, chatID, PlayOptions{Text: ev.Text})
	switch {
	case errors.Is(err, ErrClosed):
		return err
	case err != nil:
		// A bad command is the user's mistake, answered in the chat like
		// Hermes answers an unknown slash command.
		m.reply(chatID, "mock error", err.Error()+"\n\n"+m.helpText())
	}
	return nil
}

// reply sends text into the chat through the adapter's send(), off the
// caller's goroutine: the server may call Hermes while holding its locks.
func (m *Mock) reply(chatID, title, text string) {
	m.goroutine(func() {
		a := m.getAdapter()
		if a == nil {
			return
		}
		a.Send(m.ctx, chatID, text, map[string]any{
			"category": lmp.CategoryResult, "title": title, "source": "mockhermes",
			"requires_attention": false,
		})
	})
}

func (m *Mock) helpText() string {
	var b strings.Builder
	b.WriteString("Mock Hermes scenarios (send /mock <scenario> [args]; any other text plays reply):\n")
	for _, sc := range m.Scenarios() {
		fmt.Fprintf(&b, "- %s: %s\n", sc.Usage, sc.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

func eventArgs(ev server.MessageEvent) map[string]any {
	var ts any
	if !ev.Timestamp.IsZero() {
		ts = lmp.Timestamp(ev.Timestamp)
	}
	md := ev.Metadata
	if md == nil {
		md = map[string]any{}
	}
	return map[string]any{
		"text": ev.Text, "message_type": ev.MessageType, "message_id": none(ev.MessageID),
		"timestamp": ts, "metadata": md,
		"source": map[string]any{
			"platform": ev.Source.Platform, "chat_id": ev.Source.ChatID,
			"chat_name": none(ev.Source.ChatName), "chat_type": ev.Source.ChatType,
			"user_id": none(ev.Source.UserID), "user_name": none(ev.Source.UserName),
			"thread_id": none(ev.Source.ThreadID),
		},
	}
}

// InterruptSession is the gateway's /stop path (F-6), taken when /stop
// arrives through handle_message: it stops the chat's running turn, calls
// the adapter's interrupt_session_activity, releases its waiting approvals
// as cancelled and fires agent_loop_stopped once the turn has stopped.
func (m *Mock) InterruptSession(ctx context.Context, sessionKey, chatID string) error {
	m.rec.add("interrupt_session_activity", map[string]any{"session_key": sessionKey, "chat_id": chatID}, nil)
	if a := m.getAdapter(); a != nil {
		a.InterruptSessionActivity(ctx, sessionKey, chatID)
	}
	if chatID == "" {
		chatID = strings.TrimPrefix(sessionKey, server.SessionKeyPrefix)
	}
	if sessionKey == "" {
		sessionKey = SessionKey(chatID)
	}
	cur := m.current(chatID)
	if cur != nil {
		cur.cancel()
	}
	released := m.releaseSession(sessionKey)
	if cur == nil && len(released) == 0 {
		return nil // nothing was running: nothing stopped
	}
	ok := m.goroutine(func() {
		if cur != nil {
			<-cur.done
		}
		m.awaitReported(released)
		if m.ctx.Err() != nil {
			return
		}
		m.hook(m.ctx, "agent_loop_stopped", map[string]any{
			"session_key": sessionKey, "platform": Platform,
			"reason": "interrupted", "invalidation_reason": nil,
		})
	})
	if !ok {
		return ErrClosed
	}
	return nil
}
