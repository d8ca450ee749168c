package lmp

// Server → client frame types (§4).
const (
	TypeHelloOK          = "hello.ok"
	TypeError            = "error"
	TypeRunStarted       = "run.started"
	TypeRunDelta         = "run.delta"
	TypeRunInterim       = "run.interim"
	TypeRunToolStarted   = "run.tool_started"
	TypeRunToolFinished  = "run.tool_finished"
	TypeRunCompleted     = "run.completed"
	TypeRunFailed        = "run.failed"
	TypeApprovalRequired = "approval.required"
	TypeApprovalResolved = "approval.resolved"
	TypeNotification     = "notification"
	TypeTaskListResult   = "task.list.result"
	TypePing             = "ping"
	TypePong             = "pong"

	// TypeAck acknowledges session.send and approval.resolve. It is the
	// non-breaking (§6) answer to note 5: the "earlier result" that a repeated
	// request_id gets back (I-1).
	TypeAck = "ack"
)

// Client → server frame types (§4).
const (
	TypeHello           = "hello"
	TypeSessionSend     = "session.send"
	TypeRunCancel       = "run.cancel"
	TypeRunPause        = "run.pause"
	TypeRunResume       = "run.resume"
	TypeApprovalResolve = "approval.resolve"
	TypeTaskList        = "task.list"
	// TypePing and TypePong are shared by both directions.
)

// ServerTypes lists every server → client type this package knows.
var ServerTypes = []string{
	TypeHelloOK, TypeError, TypeRunStarted, TypeRunDelta, TypeRunInterim,
	TypeRunToolStarted, TypeRunToolFinished, TypeRunCompleted, TypeRunFailed,
	TypeApprovalRequired, TypeApprovalResolved, TypeNotification,
	TypeTaskListResult, TypePing, TypePong, TypeAck,
}

// ClientTypes lists every client → server type this package knows.
var ClientTypes = []string{
	TypeHello, TypePing, TypePong, TypeSessionSend, TypeRunCancel,
	TypeRunPause, TypeRunResume, TypeApprovalResolve, TypeTaskList,
}

// IsDurable reports whether frames of this server type are durable events:
// the run.* frames, approval.required, approval.resolved and notification
// of §4, and nothing else (an approval.resolve.result, say, is not one).
// The reference server numbers and buffers only these (note 2), and the
// suites' replay and de-duplication checks look only at these, whatever
// else a server numbers. Connection-scoped frames (hello.ok, error, ping,
// pong, ack, task.list.result) carry the device's current seq here without
// advancing it.
func IsDurable(frameType string) bool {
	switch frameType {
	case TypeRunStarted, TypeRunDelta, TypeRunInterim, TypeRunToolStarted,
		TypeRunToolFinished, TypeRunCompleted, TypeRunFailed,
		TypeApprovalRequired, TypeApprovalResolved, TypeNotification:
		return true
	}
	return false
}

// Enumerations (F-1, F-8).
const (
	DeltaKindText      = "text"
	DeltaKindReasoning = "reasoning"

	RunStatusCompleted = "completed"
	RunStatusFailed    = "failed"
	RunStatusCancelled = "cancelled"

	DecidedByLocal   = "local"
	DecidedByRemote  = "remote"
	DecidedByTimeout = "timeout"
	DecidedByAgent   = "agent"

	CategoryResult     = "result"
	CategoryDiagnostic = "diagnostic"

	ChoiceOnce    = "once"
	ChoiceSession = "session"
	ChoiceAlways  = "always"
	ChoiceDeny    = "deny"

	StylePrimary   = "primary"
	StyleSecondary = "secondary"
	StyleDanger    = "danger"

	TaskStatusLive  = "live"
	TaskStatusEnded = "ended"
)

// Choices lists the values approval.resolve.choice may take (F-8).
var Choices = []string{ChoiceOnce, ChoiceSession, ChoiceAlways, ChoiceDeny}
