package hermes

import (
	"context"
	"time"
)

// The Hermes boundary has two directions, as in the real gateway: Hermes
// is what the platform adapter calls in Hermes, Adapter is what Hermes
// calls in the platform adapter (plugin hooks and the methods of
// gateway/platforms/base.py). Names follow Hermes' own.

// Hermes is the gateway as the platform adapter sees it: the calls the
// adapter makes into Hermes. It mirrors the real interfaces named in §7 of
// the spec (H-5, H-6); package mockhermes implements it, and a production
// adapter would bind it to the gateway.
//
// Implementations must be safe for concurrent use and must not call back
// into the Adapter synchronously while holding their own locks in a way that
// would deadlock: the adapter may call Hermes from any goroutine.
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

	// GetSession is the session store's get_session: the row of one
	// session id, and false when the store has none. Read-only.
	GetSession(ctx context.Context, sessionID string) (SessionRow, bool, error)
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
	// Origin is where a gateway session's messages come from and its
	// replies go (origin_json, run_agent.py _gateway_origin_json), written
	// when the session is created; zero for a session with no gateway
	// identity (the CLI's).
	Origin SessionOrigin
	// ParentSessionID is set on a subagent's session (and on the session a
	// compression continues), "" otherwise.
	ParentSessionID string
}

// SessionOrigin is a session row's origin: the platform and chat it
// belongs to, as SessionSource.to_dict() lays it out.
type SessionOrigin struct {
	Platform string
	ChatID   string
	ChatType string // "dm"
	UserID   string
}

// BackgroundSessionPrefix starts the session id of a /background run,
// which runs in a session of its own with the chat's platform and origin
// and delivers its result through send().
const BackgroundSessionPrefix = "bg_"
