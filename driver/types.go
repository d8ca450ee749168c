package driver

// Prefix is the path under which the driver API is served. The reference
// server serves it on its own port, loopback only, like the pairing
// endpoint.
const Prefix = "/internal/mock/v1"

// Routes, relative to Prefix.
const (
	RouteProfile   = "/profile"   // GET: Profile
	RouteHook      = "/hook"      // POST HookRequest: OK
	RouteSend      = "/send"      // POST SendRequest: SendResponse
	RouteApproval  = "/approval"  // POST ApprovalRequest: ApprovalResponse
	RoutePlay      = "/play"      // POST PlayRequest: PlayResponse
	RouteScenarios = "/scenarios" // GET: ScenarioList
	RouteCalls     = "/calls"     // GET: CallList; DELETE: OK
	RouteSession   = "/session"   // POST SessionRequest: SessionResponse
)

// Profile is the server's effective timing profile. Durations are in
// milliseconds. Suites derive their waits from it; lmp-check --strict
// compares it with the spec's defaults.
type Profile struct {
	PingIntervalMS    int64 `json:"ping_interval_ms"`
	PongTimeoutMS     int64 `json:"pong_timeout_ms"`
	MissedPongs       int   `json:"missed_pongs"`
	AuthTimeoutMS     int64 `json:"auth_timeout_ms"`
	PairTTLMS         int64 `json:"pair_ttl_ms"`
	ApprovalTimeoutMS int64 `json:"approval_timeout_ms"`
	ReplayWindow      int   `json:"replay_window"`
	RequestIDWindow   int   `json:"request_id_window"`
}

// HookRequest fires a plugin hook with the given keyword arguments, as
// Hermes would. telemetry_schema_version is added when absent.
type HookRequest struct {
	Name   string         `json:"name"`
	Kwargs map[string]any `json:"kwargs"`
}

// SendRequest calls the adapter's send(): a notification.
// Metadata keys the reference adapter reads: category (result|diagnostic),
// title, source, requires_attention.
type SendRequest struct {
	ChatID   string         `json:"chat_id"`
	Content  string         `json:"content"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// SendResponse is the adapter's SendResult.
type SendResponse struct {
	Success   bool   `json:"success"`
	MessageID string `json:"message_id"`
	Error     string `json:"error"`
	Retryable bool   `json:"retryable"`
}

// ApprovalRequest makes the mock Hermes ask for an exec approval the way
// the gateway does: pre_approval_request, the adapter's
// _send_exec_approval_prompt, a wait of TimeoutMS (the profile's approval
// timeout when zero), then post_approval_response with the outcome.
type ApprovalRequest struct {
	TaskID         string `json:"task_id,omitempty"` // the chat; a new one when empty
	RunID          string `json:"run_id,omitempty"`
	Command        string `json:"command"`
	Description    string `json:"description,omitempty"`
	AllowPermanent *bool  `json:"allow_permanent,omitempty"` // default true
	AllowSession   *bool  `json:"allow_session,omitempty"`   // default true
	SmartDenied    bool   `json:"smart_denied,omitempty"`
	TimeoutMS      int64  `json:"timeout_ms,omitempty"`
}

// ApprovalResponse names the pending approval: its Hermes request id (the
// LMP approval_id) and session key.
type ApprovalResponse struct {
	ApprovalID string `json:"approval_id"`
	TaskID     string `json:"task_id"`
	SessionKey string `json:"session_key"`
}

// PlayRequest plays a scenario, built in or loaded with --script, in the
// given task (a new one when empty). With Wait the response comes when the
// scenario ends; otherwise at once.
type PlayRequest struct {
	Scenario string   `json:"scenario"`
	Args     []string `json:"args,omitempty"`
	TaskID   string   `json:"task_id,omitempty"`
	Wait     bool     `json:"wait,omitempty"`
	// Faults imitate Hermes' delivery quirks for this playback only, on top
	// of any the implementation was started with.
	Faults *Faults `json:"faults,omitempty"`
}

// Faults are Hermes' own stream-hook delivery quirks, for testing an
// adapter's robustness. Reorder delivers each model call's last
// on_stream_delta after its on_stream_end; DropEvery drops every n-th
// on_stream_delta (0: none); Duplicate delivers every on_stream_end and
// post_tool_call twice.
type Faults struct {
	Reorder   bool `json:"reorder,omitempty"`
	DropEvery int  `json:"drop_every,omitempty"`
	Duplicate bool `json:"duplicate,omitempty"`
}

// PlayResponse names the task the scenario plays in, and its first run when
// the scenario starts one. Error is set when a waited-for scenario failed to
// play (not when it played a failing run).
type PlayResponse struct {
	TaskID string `json:"task_id"`
	RunID  string `json:"run_id,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Scenario describes one playable scenario.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Usage       string `json:"usage"`
}

// ScenarioList answers GET /scenarios.
type ScenarioList struct {
	Scenarios []Scenario `json:"scenarios"`
}

// Call is one recorded call the adapter made into Hermes. Name is the
// Hermes function: resolve_gateway_approval, handle_message,
// interrupt_session_activity or list_sessions_rich. Args holds its
// arguments by their Hermes names; Result its return value, if any.
type Call struct {
	Seq    int64          `json:"seq"`
	Name   string         `json:"name"`
	Args   map[string]any `json:"args"`
	Result any            `json:"result,omitempty"`
	At     float64        `json:"at"` // float epoch seconds
}

// CallList answers GET /calls, oldest first.
type CallList struct {
	Calls []Call `json:"calls"`
}

// SessionRequest seeds a row in the mock session store, for task.list.
type SessionRequest struct {
	TaskID  string `json:"task_id,omitempty"` // generated when empty
	Title   string `json:"title,omitempty"`
	Model   string `json:"model,omitempty"`
	Preview string `json:"preview,omitempty"`
	Ended   bool   `json:"ended,omitempty"`
}

// SessionResponse names the seeded session.
type SessionResponse struct {
	TaskID string `json:"task_id"`
}

// OK is the body of a request that returns nothing else.
type OK struct {
	OK bool `json:"ok"`
}

// Error is the body of every non-2xx answer.
type Error struct {
	Error string `json:"error"`
}
