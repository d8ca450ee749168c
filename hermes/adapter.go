package hermes

import "context"

// Adapter is what Hermes calls on the platform adapter: plugin hooks and the
// adapter methods of gateway/platforms/base.py. package server's *Server implements it.
type Adapter interface {
	// Hook delivers a plugin hook by its real name with its keyword
	// arguments: pre_llm_call, on_stream_start, on_stream_delta,
	// on_stream_end, on_interim_message, pre_tool_call, post_tool_call,
	// pre_approval_request, post_approval_response, agent_loop_stopped,
	// on_session_end. Hooks are process-wide: they include turns of other
	// platforms and of subagents. Arguments arrive as decoded JSON would
	// (numbers as float64); a malformed hook is dropped with a log line,
	// never a panic. Unknown hook names are ignored.
	Hook(ctx context.Context, name string, kwargs map[string]any)

	// SupportsExecApprovalButtons is supports_exec_approval_buttons(): when
	// true the gateway asks for approvals through SendExecApprovalPrompt,
	// otherwise as plain text through Send with
	// metadata["is_approval_prompt"] = true.
	SupportsExecApprovalButtons() bool

	// SendExecApprovalPrompt is the adapter's send_exec_approval (H-3): it
	// shows an approval to every device as approval.required. An error
	// makes the gateway fall back to a text prompt through Send.
	SendExecApprovalPrompt(ctx context.Context, p ExecApprovalPrompt) error

	// Send is the adapter's outbound send() (H-4). It carries every turn's
	// final reply (metadata["notify"] = true) as well as cron results,
	// background output, board updates, approval text fallbacks and
	// gateway notices. Hermes passes no category, title or source.
	Send(ctx context.Context, chatID, content string, metadata map[string]any) SendResult

	// InterruptSessionActivity is interrupt_session_activity: the gateway
	// calls it when it stops a session's turn (on /stop), so that the
	// adapter can stop whatever it shows for that session.
	InterruptSessionActivity(ctx context.Context, sessionKey, chatID string)
}

// ExecApprovalPrompt is what send_exec_approval hands the adapter. Hermes
// gives neither a run id nor a wall-clock deadline: the adapter finds the
// run through the approval hooks' turn_id and derives the deadline from the
// configured approval timeout.
type ExecApprovalPrompt struct {
	ChatID      string
	Command     string
	SessionKey  string
	Description string
	Metadata    map[string]any
	// AllowPermanent and AllowSession narrow the offered choices: without
	// them "always" and "session" are not offered. Hermes defaults both to
	// true.
	AllowPermanent, AllowSession bool
	// SmartDenied says the auxiliary model denied the command; the human
	// may still override it (once or deny only).
	SmartDenied bool
	// RequestID is Hermes' id of the pending approval; the server uses it
	// as the LMP approval_id and passes it back to ResolveGatewayApproval.
	RequestID string
}

// SendResult is the adapter's answer to send().
type SendResult struct {
	Success   bool
	MessageID string
	Error     string
	Retryable bool
}
