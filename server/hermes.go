package server

import (
	"context"
	"time"
)

// The Hermes boundary has two directions, as in the real gateway: Hermes
// is what the platform adapter calls in Hermes, Adapter is what Hermes
// calls in the platform adapter (plugin hooks and the methods of
// gateway/platforms/base.py). Names follow Hermes' own.

// Hermes is the server's boundary to the Hermes gateway: the calls the
// platform adapter makes into Hermes. It mirrors the real interfaces named
// in §7 of the spec (H-5, H-6); package mockhermes implements it, and a
// production adapter would bind it to the gateway.
//
// Implementations must be safe for concurrent use and must not call back
// into the Adapter synchronously while holding their own locks in a way that
// would deadlock: the server may call Hermes from any connection goroutine.
type Hermes interface {
	// ResolveGatewayApproval is tools.approval.resolve_gateway_approval
	// (H-5): it resolves the pending approval with the given Hermes request
	// id, or the session's oldest one when requestID is empty, or every one
	// when resolveAll is set, and returns how many it resolved (0 when
	// none). choice is passed unchanged (F-8): deny blocks, anything else
	// grants.
	ResolveGatewayApproval(ctx context.Context, sessionKey, choice string, resolveAll bool, reason, requestID string) (int, error)

	// HandleMessage is BasePlatformAdapter.handle_message (F-5): it injects
	// an inbound user message. A message to a busy session interrupts its
	// running turn by default. "/stop" is such a message too: the gateway
	// then interrupts the turn, calls the adapter's
	// InterruptSessionActivity, cancels a waiting approval and fires
	// agent_loop_stopped (F-6).
	HandleMessage(ctx context.Context, ev MessageEvent) error

	// ListSessions is the session store's list_sessions_rich (F-9),
	// read-only. Rows of every platform come back unless Source is set.
	ListSessions(ctx context.Context, opts ListSessionsOptions) ([]SessionRow, error)
}

// StopCommand is the inbound message that stops a session's running turn.
const StopCommand = "/stop"

// MessageEvent is Hermes' MessageEvent as the adapter builds it for
// handle_message.
type MessageEvent struct {
	Text        string
	MessageType string // "text"
	Source      SessionSource
	MessageID   string
	Timestamp   time.Time
	Metadata    map[string]any
}

// SessionSource is what build_source returns: who and where a message came
// from. The LMP adapter uses one DM chat per task, so ChatID is the task id.
type SessionSource struct {
	Platform string // "loomi"
	ChatID   string
	ChatName string
	ChatType string // "dm"
	UserID   string // the device id
	UserName string // the device model
	ThreadID string
}

// ListSessionsOptions are the arguments of list_sessions_rich.
type ListSessionsOptions struct {
	Source string // "" for every source
	Limit  int    // 0 means Hermes' default of 20
	Offset int
}

// SessionRow is one row of list_sessions_rich. A session is live while
// EndedAt is nil: the store has no status column.
type SessionRow struct {
	ID           string
	Source       string
	Model        string
	Title        string
	StartedAt    time.Time
	EndedAt      *time.Time
	MessageCount int
	Preview      string // first user message, at most 60 characters
	LastActive   time.Time
}

// Platform is the name of the LMP platform in Hermes: the source of its
// sessions and the surface of its turns' stream hooks.
const Platform = "loomi"

// SessionKeyPrefix is the gateway session key of the LMP platform's DM
// chats in Hermes' default profile: the key of chat C is SessionKeyPrefix +
// C. A gateway that multiplexes profiles puts the profile's name in place of
// main (agent:<profile>:loomi:dm:C); the adapter reads the chat out of
// either (chatOfKey) and never builds a key itself.
const SessionKeyPrefix = "agent:main:" + Platform + ":dm:"

// Adapter is what Hermes calls on the platform adapter: plugin hooks and the
// adapter methods of gateway/platforms/base.py. *Server implements it.
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
