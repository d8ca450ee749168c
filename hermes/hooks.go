package hermes

// The plugin hooks Hermes fires (../shared/hermes.md, "Plugin hooks"),
// each with its keyword arguments as a struct. A field's kw tag is the
// kwarg's name; ",optional" marks a kwarg only some calls carry (Encode
// leaves it out when zero), ",implicit" one Hermes' dispatcher adds to every
// call of a kind of hook. A *string is a kwarg that may be None.

// Names of the hooks the adapter acts on, and of the others Hermes has.
const (
	HookPreLLMCall           = "pre_llm_call"
	HookOnStreamStart        = "on_stream_start"
	HookOnStreamDelta        = "on_stream_delta"
	HookOnInterimMessage     = "on_interim_message"
	HookOnStreamEnd          = "on_stream_end"
	HookPreToolCall          = "pre_tool_call"
	HookPostToolCall         = "post_tool_call"
	HookPreApprovalRequest   = "pre_approval_request"
	HookPostApprovalResponse = "post_approval_response"
	HookAgentLoopStopped     = "agent_loop_stopped"
	HookOnSessionEnd         = "on_session_end"
	HookOnSessionReset       = "on_session_reset"
)

// Args is the keyword arguments of one hook, typed.
type Args interface {
	// HookName is the name of the hook the arguments belong to.
	HookName() string
}

// PreLLMCall is pre_llm_call, fired once per turn before its first model
// call (agent/turn_context.py). UserMessage is the text as the gateway
// prepared it, not the adapter's event text. Forks (/btw, the background
// review) fire none.
type PreLLMCall struct {
	SessionID           string `kw:"session_id"`
	TaskID              string `kw:"task_id"`
	TurnID              string `kw:"turn_id"`
	UserMessage         string `kw:"user_message"`
	ConversationHistory []any  `kw:"conversation_history"`
	IsFirstTurn         bool   `kw:"is_first_turn"`
	Model               string `kw:"model"`
	Platform            string `kw:"platform"`
	// ParentSessionID is set on a subagent's turns, "" otherwise.
	ParentSessionID string `kw:"parent_session_id"`
	SenderID        string `kw:"sender_id"`
}

// StreamBase is what every stream hook carries
// (StreamDeliveryMixin._stream_hook_base_payload). Stream hooks run
// through Hermes' stream-hook dispatcher: off the agent thread, FIFO per
// hook, no order across hooks, payloads over about 16 KiB dropped whole.
type StreamBase struct {
	TurnID    string `kw:"turn_id"`
	Iteration int    `kw:"iteration"`
	SessionID string `kw:"session_id"`
	Model     string `kw:"model"`
	Provider  string `kw:"provider"`
	// Surface is the platform name: "loomi" for this adapter's turns.
	Surface                string `kw:"surface"`
	TelemetrySchemaVersion string `kw:"telemetry_schema_version,implicit"`
}

// OnStreamStart is on_stream_start: once per streaming model call.
type OnStreamStart struct{ StreamBase }

// OnStreamDelta is on_stream_delta: a visible chunk of a model call; Kind
// is "reasoning" or "text" (or empty).
type OnStreamDelta struct {
	StreamBase
	Delta string `kw:"delta"`
	Kind  string `kw:"kind"`
}

// OnInterimMessage is on_interim_message: mid-turn commentary.
type OnInterimMessage struct {
	StreamBase
	Text            string `kw:"text"`
	AlreadyStreamed bool   `kw:"already_streamed"`
}

// OnStreamEnd is on_stream_end: the end of each model call. Finished is
// true after every successful call, one that asks for tools included; a
// failed call has Error set and may be retried in the same turn.
type OnStreamEnd struct {
	StreamBase
	FinalText string  `kw:"final_text"`
	Finished  bool    `kw:"finished"`
	Error     *string `kw:"error"`
}

// ToolCall is what both tool hooks carry.
type ToolCall struct {
	ToolName        string         `kw:"tool_name"`
	Args            map[string]any `kw:"args"`
	TaskID          string         `kw:"task_id"`
	SessionID       string         `kw:"session_id"`
	ToolCallID      string         `kw:"tool_call_id"`
	TurnID          string         `kw:"turn_id"`
	APIRequestID    string         `kw:"api_request_id"`
	MiddlewareTrace []any          `kw:"middleware_trace"`
}

// PreToolCall is pre_tool_call, before each tool runs.
type PreToolCall struct{ ToolCall }

// PostToolCall is post_tool_call, after each tool. Status is "ok",
// "error" (a command denied at approval too) or "blocked" (a plugin's
// block). Bridge tools fire it with no pre_tool_call.
type PostToolCall struct {
	ToolCall
	Result       any     `kw:"result"`
	DurationMS   int     `kw:"duration_ms"`
	Status       string  `kw:"status"`
	ErrorType    *string `kw:"error_type"`
	ErrorMessage *string `kw:"error_message"`
}

// Approval is what both approval hooks carry. SessionKey names the chat.
type Approval struct {
	Command     string   `kw:"command"`
	Description string   `kw:"description"`
	PatternKey  string   `kw:"pattern_key"`
	PatternKeys []string `kw:"pattern_keys"`
	SessionKey  string   `kw:"session_key"`
	// Surface is "gateway" for a prompt to the human, "smart" for the
	// auxiliary model's own decision.
	Surface    string `kw:"surface"`
	TurnID     string `kw:"turn_id"`
	ToolCallID string `kw:"tool_call_id"`
	SessionID  string `kw:"session_id"`
}

// PreApprovalRequest is pre_approval_request, before the adapter is asked
// to show an approval; a follower coalesced onto an identical pending one
// gets Coalesced and no prompt.
type PreApprovalRequest struct {
	Approval
	Coalesced bool `kw:"coalesced,optional"`
}

// PostApprovalResponse is post_approval_response, after the wait ends.
type PostApprovalResponse struct {
	Approval
	Choice    string `kw:"choice"`
	Cancelled string `kw:"cancelled,optional"`
	DecidedBy string `kw:"decided_by,optional"`
}

// AgentLoopStopped is agent_loop_stopped: /stop (InvalidationReason
// "stop_command") or /new stopped a session's turn.
type AgentLoopStopped struct {
	SessionKey         string  `kw:"session_key"`
	Platform           string  `kw:"platform"`
	Reason             string  `kw:"reason"`
	InvalidationReason *string `kw:"invalidation_reason"`
}

// OnSessionEnd is on_session_end, fired synchronously at the end of every
// turn (agent/turn_finalizer.py), never for a fork. TurnExitReason says
// why the loop ended, such as "text_response(stop)".
type OnSessionEnd struct {
	SessionID      string `kw:"session_id"`
	TaskID         string `kw:"task_id"`
	TurnID         string `kw:"turn_id"`
	Completed      bool   `kw:"completed"`
	Failed         bool   `kw:"failed"`
	Interrupted    bool   `kw:"interrupted"`
	TurnExitReason string `kw:"turn_exit_reason"`
	Model          string `kw:"model"`
	Platform       string `kw:"platform"`
}

// OnSessionReset is on_session_reset: a session was reset to a new
// session id (/new, /reset), fired with the CLI's kwargs.
type OnSessionReset struct {
	SessionID string `kw:"session_id"`
	Platform  string `kw:"platform"`
}

func (PreLLMCall) HookName() string           { return HookPreLLMCall }
func (OnStreamStart) HookName() string        { return HookOnStreamStart }
func (OnStreamDelta) HookName() string        { return HookOnStreamDelta }
func (OnInterimMessage) HookName() string     { return HookOnInterimMessage }
func (OnStreamEnd) HookName() string          { return HookOnStreamEnd }
func (PreToolCall) HookName() string          { return HookPreToolCall }
func (PostToolCall) HookName() string         { return HookPostToolCall }
func (PreApprovalRequest) HookName() string   { return HookPreApprovalRequest }
func (PostApprovalResponse) HookName() string { return HookPostApprovalResponse }
func (AgentLoopStopped) HookName() string     { return HookAgentLoopStopped }
func (OnSessionEnd) HookName() string         { return HookOnSessionEnd }
func (OnSessionReset) HookName() string       { return HookOnSessionReset }

// None returns s as a kwarg that may be None: nil when s is empty.
func None(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Deref returns the string a kwarg that may be None holds, "" for None.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
