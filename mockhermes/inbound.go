package mockhermes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/model"
)

// MockCommand is the prefix of an in-band scenario request from the phone.
const MockCommand = "/mock"

// DefaultScenario plays for any message that is not a command.
const DefaultScenario = "reply"

// Gateway commands the mock understands, as Hermes' gateway does.
const (
	StopCommand    = hermes.StopCommand
	NewCommand     = "/new"
	ApproveCommand = "/approve"
	DenyCommand    = "/deny"
	RetryCommand   = "/retry"
	BtwCommand     = "/btw"
)

// HandleMessage is BasePlatformAdapter.handle_message (F-5). A sender the
// platform does not allow is refused. "/stop" stops the chat's running turn
// (the gateway then calls the adapter's interrupt_session_activity, cancels
// a waiting approval and fires agent_loop_stopped), "/new" starts a new
// session, "/approve" and "/deny" answer the oldest pending approval,
// "/retry" runs the chat's last user message again as a new turn (whose
// pre_llm_call names that message, not "/retry": a turn the gateway starts
// with no new message of the adapter's), "/btw <question>" answers a side
// question in a fork of the chat's session, beside a running turn if one
// runs (its own turn_id, stream hooks, no pre_llm_call, no
// on_session_end; the answer through send()).
// "/mock <scenario> [args]" plays that scenario, "/mock help" lists them,
// a marker of lmp-check's scripted model ("lmp-model:tools") plays that
// model's scenario, any other text plays reply. A message to a busy chat
// interrupts its running turn and runs next (display.busy_input_mode
// interrupt, Hermes' default), or waits behind it in queue mode.
func (m *Mock) HandleMessage(ctx context.Context, ev hermes.MessageEvent) error {
	m.rec.add("handle_message", map[string]any{"event": eventArgs(ev)}, nil)
	chatID := ev.Source.ChatID
	if chatID == "" {
		return errors.New("mockhermes: handle_message: event has no source chat_id")
	}
	if !m.allowed(ev.Source) {
		m.log.Warn("mockhermes: message from an unauthorized user refused", "platform", ev.Source.Platform, "user_id", ev.Source.UserID)
		m.reply(chatID, "I don't recognise you: this Hermes does not allow your user on "+ev.Source.Platform+".")
		return nil
	}
	text := strings.TrimSpace(ev.Text)
	f := strings.Fields(text)
	cmd := ""
	if len(f) > 0 {
		cmd = f[0]
	}
	switch cmd {
	case StopCommand:
		return m.stop(chatID, CancelInterrupt, "stop_command")
	case NewCommand:
		return m.newSession(chatID)
	case ApproveCommand, DenyCommand:
		choice := lmp.ChoiceDeny
		if cmd == ApproveCommand {
			choice = lmp.ChoiceOnce
			if len(f) > 1 && (f[1] == lmp.ChoiceSession || f[1] == lmp.ChoiceAlways) {
				choice = f[1]
			}
		}
		n, _ := m.ResolveGatewayApproval(ctx, m.sessionKey(chatID), choice, false, "", "")
		if n == 0 {
			m.reply(chatID, "No pending approval.")
		}
		return nil
	case BtwCommand:
		return m.btw(chatID, strings.TrimSpace(strings.TrimPrefix(text, BtwCommand)))
	case RetryCommand:
		last := strings.TrimSpace(m.rewindToLastUserMessage(chatID))
		if last == "" {
			m.reply(chatID, "No previous message to retry.")
			return nil
		}
		text, ev.Text = last, last
		f = strings.Fields(last)
		cmd = f[0]
		m.mu.Lock()
		m.userMessageLocked(m.chatLocked(chatID), last)
		m.mu.Unlock()
		return m.playMessage(chatID, cmd, f, text, ev)
	}
	m.mu.Lock()
	m.userMessageLocked(m.chatLocked(chatID), ev.Text)
	m.mu.Unlock()
	return m.playMessage(chatID, cmd, f, text, ev)
}

// btw is /btw: a fork of the chat's current session answers question
// through send(), whether or not a turn is running there.
func (m *Mock) btw(chatID, question string) error {
	if question == "" {
		m.reply(chatID, "Usage: /btw <question>")
		return nil
	}
	m.mu.Lock()
	c := m.chatLocked(chatID)
	session := c.sessionID
	m.mu.Unlock()
	pb := &Playback{TaskID: chatID, SessionID: session, vars: map[string]string{"text": question},
		stopAck: make(chan struct{}), done: make(chan struct{})}
	pb.ctx, pb.cancel = context.WithCancelCause(m.ctx)
	t := &turn{m: m, pb: pb, out: turnFaults{m: m, f: m.opts.Faults},
		platform: Platform, surface: Platform, chatID: chatID, sessionKey: m.sessionKey(chatID),
		sessionID: session, model: DefaultModel, provider: DefaultProvider, sendsReplies: true}
	answer := "By the way: " + question + " (the mock answers side questions without stopping the turn)."
	if !m.goroutine(func() {
		pb.finish(t.fork(pb.ctx, &ForkStep{Steps: []Step{stream(answer)}, Reply: answer}))
	}) {
		return ErrClosed
	}
	return nil
}

// rewindToLastUserMessage cuts the chat's current session back to before
// its latest user message and returns that message, "" when there is none:
// /retry rewrites the transcript to the history before the last turn the
// user started, then handles its text as a new message (gateway
// _handle_retry_command), so the retried turn's conversation_history holds
// neither the old message nor the answer it got.
func (m *Mock) rewindToLastUserMessage(chatID string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.chats[chatID]
	if c == nil {
		return ""
	}
	i, text := c.history.lastOfRole("user")
	if i >= 0 {
		c.history.truncate(i)
	}
	return text
}

// playMessage plays the turn a user message asks for.
func (m *Mock) playMessage(chatID, cmd string, f []string, text string, ev hermes.MessageEvent) error {
	name, args := DefaultScenario, []string(nil)
	if cmd == MockCommand {
		if len(f) == 1 || f[1] == "help" {
			m.reply(chatID, m.helpText())
			return nil
		}
		name, args = f[1], f[2:]
	} else if short, ok := model.MarkerIn(text); ok && modelScenario(model.Marker(short)) != nil {
		name = model.Marker(short) // a scenario of lmp-check's scripted model
	}
	pb, err := m.prepare(name, args, chatID, PlayOptions{Text: ev.Text, SenderID: ev.Source.UserID})
	if err != nil {
		// A bad command is the user's mistake, answered in the chat like
		// Hermes answers an unknown slash command.
		m.reply(chatID, err.Error()+"\n\n"+m.helpText())
		return nil
	}
	if err := m.enqueue(pb, m.opts.BusyInputMode != BusyQueue); err != nil {
		pb.finish(err)
		return err
	}
	return nil
}

func (m *Mock) allowed(src hermes.SessionSource) bool {
	if m.opts.AllowAllUsers {
		return true
	}
	return m.opts.AllowUser != nil && m.opts.AllowUser(src)
}

// stop is the gateway's _interrupt_and_clear_session: it interrupts the
// chat's running turn, calls the adapter's interrupt_session_activity,
// cancels the session's waiting approvals and, once the turn has wound
// down, fires agent_loop_stopped. With nothing running it only answers.
func (m *Mock) stop(chatID, cause, invalidation string) error {
	key := m.sessionKey(chatID)
	cur := m.current(chatID)
	if cur != nil && cur.turn == nil {
		cur = nil // notifications only: nothing to interrupt
	}
	if cur == nil {
		if invalidation == "stop_command" {
			m.reply(chatID, "No active task to stop.")
		}
		return nil
	}
	reason := errInterrupted
	if invalidation == "new_command" {
		reason = errNewSession
	}
	cur.cancel(reason)
	ok := m.goroutine(func() {
		m.rec.add("interrupt_session_activity", map[string]any{"session_key": key, "chat_id": chatID}, nil)
		if a := m.getAdapter(); a != nil {
			a.InterruptSessionActivity(m.ctx, key, chatID)
		}
		released := m.releaseSession(key, cause)
		cur.ack()
		<-cur.done
		m.awaitReported(released)
		if m.ctx.Err() != nil {
			return
		}
		m.fire(m.ctx, hermes.AgentLoopStopped{
			SessionKey: key, Platform: Platform, Reason: "user_stop", InvalidationReason: hermes.None(invalidation),
		})
		if invalidation == "stop_command" {
			m.replyNow(chatID, "⚡ Stopped.")
		}
	})
	if !ok {
		return ErrClosed
	}
	return nil
}

// newSession is /new: it stops a running turn, ends the chat's session and
// starts a new one; later turns carry the new session id.
func (m *Mock) newSession(chatID string) error {
	if err := m.stop(chatID, CancelInterrupt, "new_command"); err != nil {
		return err
	}
	m.mu.Lock()
	m.rolloverLocked(m.chatLocked(chatID))
	m.mu.Unlock()
	m.reply(chatID, "✨ New session started.")
	return nil
}

// reply sends a gateway answer (a command's response) into the chat through
// the adapter's send(), off the caller's goroutine: the server may call
// Hermes while holding its locks. It is not a turn's final reply, so it
// carries no notify metadata.
func (m *Mock) reply(chatID, text string) {
	m.goroutine(func() { m.replyNow(chatID, text) })
}

// replyNow is reply on the calling goroutine, which must not be the
// adapter's.
func (m *Mock) replyNow(chatID, text string) {
	if a := m.getAdapter(); a != nil {
		a.Send(m.ctx, chatID, text, map[string]any{})
	}
}

func (m *Mock) helpText() string {
	var b strings.Builder
	b.WriteString("Mock Hermes scenarios (send /mock <scenario> [args]; any other text plays reply):\n")
	for _, sc := range m.Scenarios() {
		fmt.Fprintf(&b, "- %s: %s\n", sc.Usage, sc.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

func eventArgs(ev hermes.MessageEvent) map[string]any {
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

// Stop is /stop arriving for chatID, as if through handle_message: for
// tests and the driver.
func (m *Mock) Stop(chatID string) error { return m.stop(chatID, CancelInterrupt, "stop_command") }
