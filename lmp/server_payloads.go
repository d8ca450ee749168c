package lmp

import (
	"encoding/json"
	"fmt"
)

// HelloOK answers a successful hello. Credential is present only when the
// hello paired a new device with a token (P-7).
type HelloOK struct {
	DeviceID        string  `json:"device_id"`
	Credential      *string `json:"credential,omitempty"`
	ServerName      string  `json:"server_name"`
	ServerVersion   string  `json:"server_version"`
	ProtocolVersion int     `json:"protocol_version"` // V-2
	ServerTime      float64 `json:"server_time"`      // T-8
	Truncated       bool    `json:"truncated"`        // E-6
	HomeChannel     *string `json:"home_channel"`
}

// Error reports a refused frame or a failed request. Fatal errors are
// followed by a close. RequestID echoes the request that failed, when there
// was one; SupportedVersions accompanies unsupported_version (note 11).
type Error struct {
	Code              string `json:"code"`
	Message           string `json:"message"`
	Fatal             bool   `json:"fatal"`
	RequestID         string `json:"request_id,omitempty" lmp:"ours"`
	SupportedVersions []int  `json:"supported_versions,omitempty" lmp:"ours"`
}

// RunStarted opens a run (one agent turn), from on_stream_start (H-1).
type RunStarted struct {
	RunID     string  `json:"run_id"`
	TaskID    string  `json:"task_id"`
	SessionID string  `json:"session_id"`
	Surface   string  `json:"surface"`
	Model     string  `json:"model"`
	Provider  string  `json:"provider"`
	StartedAt float64 `json:"started_at"`
	Title     *string `json:"title"`
}

// RunDelta carries one streamed chunk, from on_stream_delta (H-1).
type RunDelta struct {
	RunID     string `json:"run_id"`
	Text      string `json:"text"`
	Kind      string `json:"kind"` // DeltaKindText or DeltaKindReasoning
	Iteration int    `json:"iteration"`
}

// RunInterim carries mid-turn commentary, from on_interim_message (H-1).
type RunInterim struct {
	RunID           string `json:"run_id"`
	Text            string `json:"text"`
	AlreadyStreamed bool   `json:"already_streamed"`
}

// RunToolStarted announces a tool call, from pre_tool_call (H-2). Index
// numbers the calls within one iteration; CallID is Hermes' tool_call_id and
// takes precedence for pairing (F-3).
type RunToolStarted struct {
	RunID     string `json:"run_id"`
	Iteration int    `json:"iteration"`
	Tool      string `json:"tool"`
	Preview   string `json:"preview"`
	Index     int    `json:"index"`
	CallID    string `json:"call_id"`
}

// RunToolFinished closes a tool call, from post_tool_call (H-2). Duration is
// in seconds.
type RunToolFinished struct {
	RunID     string  `json:"run_id"`
	Iteration int     `json:"iteration"`
	Tool      string  `json:"tool"`
	OK        bool    `json:"ok"`
	Index     int     `json:"index"`
	CallID    string  `json:"call_id"`
	Duration  float64 `json:"duration"`
}

// RunCompleted ends a run. The reference server sends it with status
// completed or cancelled; a failed run ends with RunFailed instead (note 6).
// Finished is what Hermes passes, a boolean, and the reference server writes
// that; the spec names no type, and another implementation may send a
// number, such as the timestamp the run finished at (note 21), which
// decodes as true unless it is 0.
type RunCompleted struct {
	RunID    string  `json:"run_id"`
	Status   string  `json:"status"`
	Text     string  `json:"text"`
	Error    *string `json:"error"`
	Finished bool    `json:"finished"`
}

// UnmarshalJSON accepts finished as a boolean or a number.
func (p *RunCompleted) UnmarshalJSON(data []byte) error {
	type plain RunCompleted // the same fields, without this method
	var v struct {
		plain
		Finished json.RawMessage `json:"finished"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*p = RunCompleted(v.plain)
	if len(v.Finished) == 0 || string(v.Finished) == "null" {
		return nil
	}
	if err := json.Unmarshal(v.Finished, &p.Finished); err == nil {
		return nil
	}
	var n float64
	if err := json.Unmarshal(v.Finished, &n); err != nil {
		return fmt.Errorf("finished: want a boolean or a number, got %s", v.Finished)
	}
	p.Finished = n != 0
	return nil
}

// RunFailed ends a run whose error is non-empty (F-4).
type RunFailed struct {
	RunID  string `json:"run_id"`
	Error  string `json:"error"`
	Status string `json:"status"` // always RunStatusFailed
}

// ApprovalChoice is one button of an approval prompt.
type ApprovalChoice struct {
	Label  string `json:"label"`
	Choice string `json:"choice"`
	Style  string `json:"style"`
}

// ApprovalRequired asks the user to approve a command, from the adapter's
// exec-approval prompt (H-3).
type ApprovalRequired struct {
	ApprovalID    string           `json:"approval_id"`
	RunID         *string          `json:"run_id"`
	TaskID        *string          `json:"task_id"`
	Command       string           `json:"command"`
	Description   string           `json:"description"`
	Choices       []ApprovalChoice `json:"choices"`
	SmartDenied   bool             `json:"smart_denied"`
	SessionKeyRef string           `json:"session_key_ref"`
	DeadlineTS    float64          `json:"deadline_ts"`
}

// ApprovalResolved tells every device that an approval is settled (M-3),
// from post_approval_response (H-3). Choice is Hermes' outcome, which may
// be timeout, cancelled or a smart_* value besides the four user choices.
type ApprovalResolved struct {
	ApprovalID string `json:"approval_id"`
	Choice     string `json:"choice"`
	DecidedBy  string `json:"decided_by"`
}

// Notification carries an outbound send() from Hermes (H-4).
type Notification struct {
	Category          string `json:"category"`
	Title             string `json:"title"`
	Text              string `json:"text"`
	Source            string `json:"source"`
	RequiresAttention bool   `json:"requires_attention"`
}

// Task is one row of task.list.result: a Hermes session, live while
// ended_at is null.
type Task struct {
	TaskID       string   `json:"task_id"`
	Title        *string  `json:"title" lmp:"ours"`
	Status       string   `json:"status,omitempty" lmp:"ours"` // the reference server's TaskStatusLive or TaskStatusEnded; any string in the schema (note 21)
	Source       string   `json:"source" lmp:"ours"`
	Model        *string  `json:"model" lmp:"ours"`
	StartedAt    float64  `json:"started_at" lmp:"ours"`
	EndedAt      *float64 `json:"ended_at" lmp:"ours"`
	MessageCount int      `json:"message_count" lmp:"ours"`
	Preview      string   `json:"preview" lmp:"ours"`
	LastActive   float64  `json:"last_active" lmp:"ours"`
}

// TaskListResult answers task.list (F-9).
type TaskListResult struct {
	RequestID string `json:"request_id" lmp:"ours"`
	Tasks     []Task `json:"tasks"`
}

// Ack acknowledges a session.send or approval.resolve (note 5). A repeated
// request_id gets the same ack again, verbatim (I-1).
type Ack struct {
	RequestID  string  `json:"request_id"`
	For        string  `json:"for" lmp:"ours"` // TypeSessionSend or TypeApprovalResolve
	TaskID     *string `json:"task_id" lmp:"ours"`
	RunID      *string `json:"run_id" lmp:"ours"`
	ApprovalID *string `json:"approval_id" lmp:"ours"`
}

// Ping and Pong have empty payloads.
type (
	Ping struct{}
	Pong struct{}
)

func (HelloOK) FrameType() string          { return TypeHelloOK }
func (Error) FrameType() string            { return TypeError }
func (RunStarted) FrameType() string       { return TypeRunStarted }
func (RunDelta) FrameType() string         { return TypeRunDelta }
func (RunInterim) FrameType() string       { return TypeRunInterim }
func (RunToolStarted) FrameType() string   { return TypeRunToolStarted }
func (RunToolFinished) FrameType() string  { return TypeRunToolFinished }
func (RunCompleted) FrameType() string     { return TypeRunCompleted }
func (RunFailed) FrameType() string        { return TypeRunFailed }
func (ApprovalRequired) FrameType() string { return TypeApprovalRequired }
func (ApprovalResolved) FrameType() string { return TypeApprovalResolved }
func (Notification) FrameType() string     { return TypeNotification }
func (TaskListResult) FrameType() string   { return TypeTaskListResult }
func (Ack) FrameType() string              { return TypeAck }
func (Ping) FrameType() string             { return TypePing }
func (Pong) FrameType() string             { return TypePong }
