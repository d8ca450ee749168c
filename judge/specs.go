package judge

import "github.com/loomi-lmp/lmpkit/suites/rules"

// Spec is one judged requirement of the app: the same shape as a server
// spec (section, requirement, rule IDs, level, labels), so that the
// reports, the rule matrix and --label-filter/--focus treat both alike.
type Spec struct {
	Section string
	Text    string
	Rules   []string
	Level   rules.Level
	// Action names the automation action the spec needs from the app, ""
	// for none: without it the spec is skipped, never failed.
	Action string
}

// Labels are the spec's labels for --label-filter: its rule IDs, its
// level, "app" and the action it needs ("action:send"), if any.
func (s Spec) Labels() []string {
	out := append([]string{}, s.Rules...)
	out = append(out, string(s.Level), "app")
	if s.Action != "" {
		out = append(out, "action:"+s.Action)
	}
	return out
}

// The sections of an app run, in the order the scenarios play them.
const (
	secPairing   = "App: pairing"
	secHeartbeat = "App: heartbeat"
	secReplay    = "App: ordering, replay, reconnection"
	secTruncated = "App: truncation"
	secUnknown   = "App: unknown types and fields"
	secRequests  = "App: requests"
	secApprovals = "App: approvals"
	secRestart   = "App: cold restart"
	secFrames    = "App: frames"
	secPinning   = "App: certificate pinning"
	secVersion   = "App: protocol version"
)

// The specs, one variable each so that the scenarios name what they judge,
// in the order the scenarios play them: that is the order of Specs() and
// of a report.
var (
	specPairHello = declare(Spec{Section: secPairing, Rules: []string{"C-1"}, Level: rules.MUST,
		Text: "the first frame of a new device's connection is hello carrying the QR's token and no device_id or credential"})
	specPong = declare(Spec{Section: secHeartbeat, Rules: []string{"C-3"}, Level: rules.MUST,
		Text: "the app answers each server ping with pong within 10 s"})
	specPongBurst = declare(Spec{Section: secHeartbeat, Rules: []string{"C-3"}, Level: rules.MUST,
		Text: "the app answers pings within 10 s while it works through a burst of events"})
	specLossReconnect = declare(Spec{Section: secReplay, Rules: []string{"C-6"}, Level: rules.MUST,
		Text: "after a network loss the app reconnects with device_id, credential and last_seq rather than pairing again"})
	specBurstLastSeq = declare(Spec{Section: secReplay, Rules: []string{"C-5"}, Level: rules.MUST,
		Text: "after a burst with duplicates and out-of-order seqs, the app's next hello carries last_seq = the highest seq it processed"})
	specSlowReconnect = declare(Spec{Section: secReplay, Rules: []string{"C-6"}, Level: rules.MUST,
		Text: "after a slow-consumer close (slow_consumer, 1013) the app reconnects with last_seq"})
	specReplayLastSeq = declare(Spec{Section: secReplay, Rules: []string{"C-5"}, Level: rules.MUST,
		Text: "after a replay that re-sends seqs it already processed, out of order, the app's next hello carries last_seq = the highest seq it processed"})
	specHeartbeatReconnect = declare(Spec{Section: secReplay, Rules: []string{"C-6"}, Level: rules.MUST,
		Text: "after a heartbeat close (heartbeat_timeout, 1008) the app reconnects with last_seq"})
	specNoUsedToken = declare(Spec{Section: secReplay, Rules: []string{"C-1"}, Level: rules.MUST,
		Text: "every hello of a paired device carries device_id and credential, never the used token"})
	specTruncated = declare(Spec{Section: secTruncated, Rules: []string{"C-7"}, Level: rules.SHOULD,
		Text: "after hello.ok with truncated: true the app fetches task.list again"})
	specUnknownKept = declare(Spec{Section: secUnknown, Rules: []string{"C-8"}, Level: rules.MUST,
		Text: "after a frame of an unknown type and frames with unknown fields, the app keeps the connection and answers the next ping"})
	specUnknownSeq = declare(Spec{Section: secUnknown, Rules: []string{"C-8"}, Level: rules.MUST,
		Text: "the app counts an unknown frame's seq as processed: its next hello's last_seq includes it"})
	specDistinctIDs = declare(Spec{Section: secRequests, Rules: []string{"C-10"}, Level: rules.MUST, Action: ActionSend,
		Text: "distinct requests (session.send, task.list, approval.resolve) carry distinct request_ids"})
	specResentID = declare(Spec{Section: secRequests, Rules: []string{"C-10"}, Level: rules.SHOULD, Action: ActionSend,
		Text: "a session.send left unanswered across a disconnect is sent again after the reconnect with its request_id"})
	specCancel = declare(Spec{Section: secRequests, Rules: []string{"C-4"}, Level: rules.MUST, Action: ActionCancel,
		Text: "asked to cancel a run, the app sends run.cancel naming it"})
	specChoice = declare(Spec{Section: secApprovals, Rules: []string{"C-11"}, Level: rules.MUST, Action: ActionResolve,
		Text: "approval.resolve names the prompt's approval_id and a choice among the prompt's choices"})
	specOtherDevice = declare(Spec{Section: secApprovals, Rules: []string{"C-11"}, Level: rules.MUST, Action: ActionResolve,
		Text: "after approval.resolved from another device the app sends no approval.resolve for that approval"})
	specAlreadyResolved = declare(Spec{Section: secApprovals, Rules: []string{"C-11"}, Level: rules.MUST, Action: ActionResolve,
		Text: "after error already_resolved the app does not resolve that approval again"})
	specRestart = declare(Spec{Section: secRestart, Rules: []string{"C-1", "C-5"}, Level: rules.MUST, Action: ActionRestart,
		Text: "after a cold restart the app's hello carries the stored device_id, credential and last_seq"})
	specPinRefused = declare(Spec{Section: secPinning, Rules: []string{"C-2"}, Level: rules.MUST, Action: ActionPair,
		Text: "with an fp in the QR, the app sends nothing to a server whose certificate does not match it"})
	specPinAccepted = declare(Spec{Section: secPinning, Rules: []string{"C-2"}, Level: rules.MUST, Action: ActionPair,
		Text: "with an fp in the QR, the app pairs with the server whose certificate matches, at the QR's url"})
	specVersion = declare(Spec{Section: secVersion, Rules: []string{"C-9"}, Level: rules.MUST, Action: ActionReconnect,
		Text: "after hello.ok with protocol_version 2 the app sends no request and does not reconnect"})
	specFrames = declare(Spec{Section: secFrames, Rules: []string{"C-4"}, Level: rules.MUST,
		Text: "every frame the app sends is a text frame of UTF-8 JSON valid against the client schemas"})
)

// declared is every spec, in the order of the variables above: Go
// initializes a package's variables in the order they are declared, and
// each of them declares itself, so that no second list can forget one.
var declared []Spec

// declare adds s to declared and returns it.
func declare(s Spec) Spec {
	declared = append(declared, s)
	return s
}

// Specs lists every spec of an app run in the order it is played.
func Specs() []Spec { return append([]Spec(nil), declared...) }
