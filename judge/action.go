package judge

// The actions of the automation contract: the value of Action.Action.
const (
	ActionSend      = "send"      // send session.send with Text (and TaskID, when given)
	ActionResolve   = "resolve"   // resolve approval ApprovalID with Choice
	ActionCancel    = "cancel"    // send run.cancel for RunID
	ActionList      = "list"      // fetch task.list
	ActionReconnect = "reconnect" // drop the connection and reconnect, as after a network loss
	ActionRestart   = "restart"   // stop and start cold, from what the app stored
	ActionPair      = "pair"      // forget the pairing and pair again from the next pairing JSON
)

// TitlePrefix begins the title of every notification that asks the app to
// act (and of every other diagnostic notification the judge sends).
const TitlePrefix = "lmp-check:"

// Action is the lmp_check field of an action notification's payload.
type Action struct {
	Action     string `json:"action"`
	Text       string `json:"text,omitempty"`
	TaskID     string `json:"task_id,omitempty"`
	ApprovalID string `json:"approval_id,omitempty"`
	Choice     string `json:"choice,omitempty"`
	RunID      string `json:"run_id,omitempty"`
}

// ActionPayload is the payload of an action notification: a notification
// (category "diagnostic") with the extra field lmp_check, which V-1 lets
// any app ignore.
type ActionPayload struct {
	Category          string `json:"category"`
	Title             string `json:"title"`
	Text              string `json:"text"`
	Source            string `json:"source"`
	RequiresAttention bool   `json:"requires_attention"`
	LMPCheck          Action `json:"lmp_check"`
}

// FrameType makes ActionPayload an lmp.Payload: it is a notification.
func (ActionPayload) FrameType() string { return "notification" }
