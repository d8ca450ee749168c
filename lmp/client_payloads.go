package lmp

// DeviceInfo describes the phone in hello.
type DeviceInfo struct {
	Model      string `json:"model"`
	OS         string `json:"os"`
	AppVersion string `json:"app_version"`
}

// Hello authenticates a connection and must be its first frame (F-2). A new
// device sends Token (P-3); a paired one sends DeviceID and Credential, and
// LastSeq to get the gap replayed (P-8, E-5). Sending both is refused (P-6).
type Hello struct {
	ProtocolVersion int        `json:"protocol_version"`
	Token           string     `json:"token,omitempty"`
	DeviceID        string     `json:"device_id,omitempty"`
	Credential      string     `json:"credential,omitempty"`
	LastSeq         *int64     `json:"last_seq,omitempty"`
	DeviceInfo      DeviceInfo `json:"device_info"`
}

// SessionSend injects a user message (F-5). A nil TaskID starts a new task.
type SessionSend struct {
	TaskID    *string `json:"task_id,omitempty"`
	Text      string  `json:"text"`
	RequestID string  `json:"request_id"`
}

// RunCancel interrupts a run, like the gateway's /stop (F-6).
type RunCancel struct {
	RunID string `json:"run_id"`
}

// RunPause is a soft interrupt that keeps the session (F-7): Hermes turns
// cannot be suspended, so this is an approximation, not a real pause.
type RunPause struct {
	RunID string `json:"run_id"`
}

// RunResume injects a "continue" message into the run's session (F-7).
type RunResume struct {
	RunID string `json:"run_id"`
}

// ApprovalResolve answers an approval (F-8). Choice is passed unchanged to
// resolve_gateway_approval.
type ApprovalResolve struct {
	ApprovalID string `json:"approval_id"`
	Choice     string `json:"choice"`
	Reason     string `json:"reason,omitempty"`
	RequestID  string `json:"request_id"`
}

// TaskList asks for the task list (F-9). StatusFilter is live, ended or all.
type TaskList struct {
	RequestID    string `json:"request_id"`
	Limit        *int   `json:"limit,omitempty"`
	StatusFilter string `json:"status_filter,omitempty"`
}

// Task status filters for TaskList.
const (
	StatusFilterLive  = "live"
	StatusFilterEnded = "ended"
	StatusFilterAll   = "all"
)

func (Hello) FrameType() string           { return TypeHello }
func (SessionSend) FrameType() string     { return TypeSessionSend }
func (RunCancel) FrameType() string       { return TypeRunCancel }
func (RunPause) FrameType() string        { return TypeRunPause }
func (RunResume) FrameType() string       { return TypeRunResume }
func (ApprovalResolve) FrameType() string { return TypeApprovalResolve }
func (TaskList) FrameType() string        { return TypeTaskList }
