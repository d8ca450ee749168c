package conformance

// Trigger is a kind of Hermes-side event the suites ask a server for: one
// key of a triggers file. A spec names one by its constant, so that a kind
// the triggers do not know cannot be asked for.
type Trigger int

// The kinds of trigger, each a key of schema/triggers.schema.json.
const (
	TriggerReply Trigger = iota
	TriggerNotifications
	TriggerApproval
	TriggerFailingRun
	TriggerLongRun
	TriggerToolRun
)

// Triggers lists every kind, in the triggers file's order.
var allTriggers = []Trigger{TriggerReply, TriggerNotifications, TriggerApproval, TriggerFailingRun, TriggerLongRun, TriggerToolRun}

// String is the kind's key in a triggers file ("reply", "failing_run" …).
func (k Trigger) String() string {
	switch k {
	case TriggerReply:
		return "reply"
	case TriggerNotifications:
		return "notifications"
	case TriggerApproval:
		return "approval"
	case TriggerFailingRun:
		return "failing_run"
	case TriggerLongRun:
		return "long_run"
	case TriggerToolRun:
		return "tool_run"
	}
	return "unknown"
}

// of returns the triggers' text for k and the reason they give for having
// none.
func (t *Triggers) of(k Trigger) (text, unavailable string) {
	switch k {
	case TriggerReply:
		return t.Reply, t.Unavailable.Reply
	case TriggerNotifications:
		return t.Notifications, t.Unavailable.Notifications
	case TriggerApproval:
		return t.Approval, t.Unavailable.Approval
	case TriggerFailingRun:
		return t.FailingRun, t.Unavailable.FailingRun
	case TriggerLongRun:
		return t.LongRun, t.Unavailable.LongRun
	case TriggerToolRun:
		return t.ToolRun, t.Unavailable.ToolRun
	}
	return "", ""
}
