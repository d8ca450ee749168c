package server

import (
	"context"
	"time"
)

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
	// a user message. A busy session queues it.
	HandleMessage(ctx context.Context, ev MessageEvent) error

	// InterruptSession is the gateway's /stop path (F-6): it interrupts the
	// session's running turn and releases a waiting approval as cancelled.
	InterruptSession(ctx context.Context, sessionKey, chatID string) error

	// ListSessions is the session store's list_sessions_rich (F-9),
	// read-only.
	ListSessions(ctx context.Context, opts ListSessionsOptions) ([]SessionRow, error)
}

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

// SessionKeyPrefix is the gateway session key of the LMP platform's DM
// chats: the key of task T is SessionKeyPrefix + T.
const SessionKeyPrefix = "agent:main:loomi:dm:"

// Adapter is what Hermes calls on the platform adapter: plugin hooks and the
// adapter methods of gateway/platforms/base.py. *Server implements it.
type Adapter interface {
	// Hook delivers a plugin hook by its real name with its keyword
	// arguments (on_stream_start, on_stream_delta, on_stream_end,
	// on_interim_message, pre_tool_call, post_tool_call,
	// pre_approval_request, post_approval_response, agent_loop_stopped).
	// Arguments arrive as decoded JSON would (numbers as float64); a
	// malformed hook is dropped with a log line, never a panic. Unknown
	// hook names are ignored.
	Hook(ctx context.Context, name string, kwargs map[string]any)

	// SendExecApprovalPrompt is the adapter's _send_exec_approval_prompt
	// (H-3): it shows an approval to every device as approval.required.
	SendExecApprovalPrompt(ctx context.Context, p ExecApprovalPrompt) error

	// Send is the adapter's outbound send() (H-4): cron results, background
	// output, board updates and gateway notices, which become notification
	// frames.
	Send(ctx context.Context, chatID, content string, metadata map[string]any) SendResult
}

// ExecApprovalPrompt is what send_exec_approval hands the adapter.
type ExecApprovalPrompt struct {
	ChatID      string
	Command     string
	SessionKey  string
	Description string
	// Choices are the offered actions, already narrowed by
	// allow_permanent, allow_session and smart_denied.
	Choices     []PromptAction
	SmartDenied bool
	// RequestID is Hermes' id of the pending approval; the server uses it
	// as the LMP approval_id and passes it back to ResolveGatewayApproval.
	RequestID string
	// Deadline is when Hermes stops waiting and times the approval out.
	Deadline time.Time
	// RunID is the turn the approval belongs to, when Hermes knows it.
	RunID string
}

// PromptAction is one (label, choice, style) action of an approval prompt.
type PromptAction struct {
	Label, Choice, Style string
}

// SendResult is the adapter's answer to send().
type SendResult struct {
	Success   bool
	MessageID string
	Error     string
	Retryable bool
}
