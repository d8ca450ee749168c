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
	RouteHooks     = "/hooks"     // GET: HookList; DELETE: OK
	RouteSession   = "/session"   // POST SessionRequest: SessionResponse
	RouteHold      = "/hold"      // POST HoldRequest: HoldResponse
	RouteRelease   = "/release"   // POST ReleaseRequest: OK
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
	// Hermes says which Hermes behaviours the implementation's Hermes side
	// has on; absent when it does not say.
	Hermes *HermesProfile `json:"hermes,omitempty"`
}

// HermesProfile describes the Hermes behind the driver API: the settings
// of real Hermes that change what an adapter receives.
type HermesProfile struct {
	// TelemetrySchemaVersion is the telemetry_schema_version stream hooks
	// carry ("hermes.observer.v1").
	TelemetrySchemaVersion string `json:"telemetry_schema_version"`
	// Surface is the platform name this adapter's turns carry as the
	// stream hooks' surface ("loomi").
	Surface string `json:"surface"`
	// StreamReasoningDeltas is plugins.stream_reasoning_deltas: reasoning
	// deltas reach plugins only when it is on.
	StreamReasoningDeltas bool `json:"stream_reasoning_deltas"`
	// BusyInputMode is display.busy_input_mode: "interrupt" or "queue".
	BusyInputMode string `json:"busy_input_mode"`
	// Crosstalk says that turns of other platforms and of subagents play
	// beside scenario turns (their hooks reach every plugin).
	Crosstalk bool `json:"crosstalk"`
	// ApprovalPromptTimeoutMS is how long the gateway waits for an
	// approval prompt's delivery before counting it possibly delivered.
	ApprovalPromptTimeoutMS int64 `json:"approval_prompt_timeout_ms"`
	// MaxStreamPayloadBytes is the size over which a stream hook's payload
	// is dropped whole; StreamQueueSize the bound of each stream hook's
	// queue (oldest dropped).
	MaxStreamPayloadBytes int `json:"max_stream_payload_bytes"`
	StreamQueueSize       int `json:"stream_queue_size"`
	// Faults are the delivery behaviours on for every playback.
	Faults Faults `json:"faults"`
}

// HookRequest fires a plugin hook with the given keyword arguments, as
// Hermes would. The name must be one of Hermes' hooks, and the kwargs
// Hermes defines must have Hermes' types (a 400 names the hook and the
// kwarg); other kwargs pass through. A stream hook gets
// telemetry_schema_version when it is absent.
type HookRequest struct {
	Name   string         `json:"name"`
	Kwargs map[string]any `json:"kwargs"`
}

// SendRequest calls the adapter's send(). Metadata keys the reference
// adapter reads: notify (true on a turn's final reply, which completes its
// run instead of becoming a notification), is_approval_prompt (an approval
// prompt's text fallback), and, when a harness gives them (Hermes does
// not), category (result|diagnostic), title, source, requires_attention.
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
	TaskID string `json:"task_id,omitempty"` // the chat; a new one when empty
	RunID  string `json:"run_id,omitempty"`
	// TurnID and ToolCallID are the approval hooks' turn_id and
	// tool_call_id: the Hermes turn and tool call that ask. TurnID takes
	// precedence over the turn RunID names (run_<turn_id>).
	TurnID         string `json:"turn_id,omitempty"`
	ToolCallID     string `json:"tool_call_id,omitempty"`
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

// Faults are Hermes' own stream-hook delivery behaviours under load, for
// testing an adapter's robustness. Interleave delivers stream hooks through
// one queue and worker per hook, as Hermes does (no order across hooks);
// Reorder delivers each model call's last on_stream_delta after its
// on_stream_end; DropEvery drops every n-th on_stream_delta (0: none).
// Duplicate delivers every on_stream_end and post_tool_call twice, which is
// beyond Hermes: Hermes never delivers twice.
type Faults struct {
	Reorder    bool `json:"reorder,omitempty"`
	DropEvery  int  `json:"drop_every,omitempty"`
	Duplicate  bool `json:"duplicate,omitempty"`
	Interleave bool `json:"interleave,omitempty"`
}

// PlayResponse names the task the scenario plays in, and its first run when
// the scenario starts one. Error is set when a waited-for scenario failed to
// play (not when it played a failing run).
type PlayResponse struct {
	TaskID string `json:"task_id"`
	RunID  string `json:"run_id,omitempty"`
	Error  string `json:"error,omitempty"`
	// SessionID is the Hermes session id the turn runs in (its hooks'
	// session_id and task_id); TurnID its turn_id. Absent when the
	// scenario starts no turn.
	SessionID string `json:"session_id,omitempty"`
	TurnID    string `json:"turn_id,omitempty"`
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

// Call is one recorded call between the adapter and Hermes. Name is the
// Hermes function: resolve_gateway_approval, handle_message and
// list_sessions_rich (the adapter calling Hermes), and
// interrupt_session_activity (Hermes calling the adapter when a /stop
// arrives). Args holds its arguments by their Hermes names; Result its
// return value, if any.
type Call struct {
	Seq    int64          `json:"seq"`
	Name   string         `json:"name"`
	Args   map[string]any `json:"args"`
	Result any            `json:"result,omitempty"`
	At     float64        `json:"at"` // float epoch seconds
	// Held is true while a hold (POST /hold) keeps Hermes from answering
	// the call: it is recorded when it arrives, and gets its Result when
	// Hermes answers.
	Held bool `json:"held,omitempty"`
}

// CallList answers GET /calls, oldest first.
type CallList struct {
	Calls []Call `json:"calls"`
}

// Hook is one plugin hook the Hermes side delivered to the adapter: fired
// by a scenario, an approval, a /stop or POST /hook, and delivered through
// Hermes' dispatch (stream hooks through their queues, with whatever
// delivery faults are on). Kwargs are as the adapter received them. At is
// when the adapter's hook callback returned, so a hook listed here has been
// processed by the adapter: a spec that needs Hermes' hook to have arrived
// waits for it here instead of for a fixed time.
type Hook struct {
	Seq    int64          `json:"seq"`
	Name   string         `json:"name"`
	Kwargs map[string]any `json:"kwargs"`
	At     float64        `json:"at"` // float epoch seconds
}

// HookList answers GET /hooks, oldest first.
type HookList struct {
	Hooks []Hook `json:"hooks"`
}

// SessionRequest seeds a row in the mock session store, for task.list.
// Without SessionID the row's id is TaskID (generated when empty). With
// SessionID it links that Hermes session to chat TaskID: the chat's turns
// run in it from now on, as after a /new. Source is the row's platform
// ("loomi" by default; "telegram", "cli" … for rows of other platforms).
type SessionRequest struct {
	TaskID    string `json:"task_id,omitempty"`
	Title     string `json:"title,omitempty"`
	Model     string `json:"model,omitempty"`
	Preview   string `json:"preview,omitempty"`
	Ended     bool   `json:"ended,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Source    string `json:"source,omitempty"`
	// ParentSessionID makes the row a subagent's session: its origin still
	// names the chat, and an adapter never shows its turns (note 22). Such
	// a row, and one whose SessionID starts with bg_ (a /background run's
	// session), does not become the chat's session.
	ParentSessionID string `json:"parent_session_id,omitempty"`
}

// SessionResponse names the seeded session: the chat (TaskID) and the
// Hermes session id.
type SessionResponse struct {
	TaskID    string `json:"task_id"`
	SessionID string `json:"session_id,omitempty"`
}

// HoldCalls are the calls a hold can hold.
var HoldCalls = []string{"resolve_gateway_approval"}

// HoldRequest makes Hermes slow to answer the adapter's next call of Call
// whose arguments include Args (by Hermes' names, compared as JSON
// values; any call of that name when Args is empty): the call is recorded
// in GET /calls at once, with held true, and Hermes neither acts on it nor
// answers it until the hold is released (POST /release), or TimeoutMS
// passes (30 s when zero), or the caller gives up. Then Hermes does what
// the call asks, as it would have at once, and answers. This is real
// Hermes under load: resolve_gateway_approval is a synchronous function
// behind one process-wide lock (tools/approval.py), which an adapter on the
// gateway's event loop calls off the loop, so its answer can come long
// after the call. A hold that no call took before its bound ends unused.
type HoldRequest struct {
	Call      string         `json:"call"`
	Args      map[string]any `json:"args,omitempty"`
	TimeoutMS int64          `json:"timeout_ms,omitempty"`
}

// HoldResponse names the hold, for POST /release.
type HoldResponse struct {
	HoldID string `json:"hold_id"`
}

// ReleaseRequest ends a hold: the held call, if any, is answered now. A
// hold that has ended already (released, or its bound passed) releases
// nothing and is not an error.
type ReleaseRequest struct {
	HoldID string `json:"hold_id"`
}

// OK is the body of a request that returns nothing else.
type OK struct {
	OK bool `json:"ok"`
}

// Error is the body of every non-2xx answer.
type Error struct {
	Error string `json:"error"`
}
