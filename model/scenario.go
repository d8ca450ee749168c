package model

import (
	"net/http"
	"slices"
	"time"
)

// A Scenario is what the model answers over one Hermes turn: one Reply per
// model call, in order. The first answers the user message that carries
// the marker; each next one answers the tool results of the one before.
type Scenario struct {
	// Name is the scenario's name; its marker is Marker(Name).
	Name string
	// Description says in a line what Hermes does with it.
	Description string
	// Replies are the turn's model calls, in order.
	Replies []Reply
}

// Marker is the text that chooses this scenario.
func (s Scenario) Marker() string { return Marker(s.Name) }

// A Reply is one model call's answer: its reasoning, its text and the
// tools it calls, or an error.
type Reply struct {
	// Reasoning streams as reasoning_content deltas, before the text.
	Reasoning string
	// Text streams as content deltas. With tool calls, Hermes fires
	// on_interim_message with it before the tools run.
	Text string
	// Calls are the tool calls. A call of a tool the request does not offer
	// goes through BridgeTool when it is offered, and is left out
	// otherwise; a reply left with neither calls nor text says so.
	Calls []Call
	// Err, when set, is the answer instead: an HTTP error.
	Err *Error
	// FailFirst, when set, answers the first attempt of this call; the
	// retry (the same conversation again) gets the reply.
	FailFirst *Error
	// Endless streams Text and then one more real chunk every
	// Options.Tick until the client goes away.
	Endless bool
}

// A Call is a tool call of a reply.
type Call struct {
	Tool string
	Args map[string]any
}

// An Error is an HTTP error the model answers, with OpenAI's error body.
type Error struct {
	Status  int
	Type    string // the body's error.type
	Code    string // the body's error.code
	Message string
	// RetryAfter is sent as Retry-After (whole seconds) when non-zero.
	RetryAfter time.Duration
}

// Hermes' classifier (agent/error_classifier.py, classify_api_error) reads
// the status and the message: a 400 fails the turn unless its message
// names context, tokens, rate limits, unknown parameters, images or
// models, so these messages name none of them.
var (
	// errBadRequest is never retried: the turn fails.
	errBadRequest = &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "scripted_failure",
		Message: "lmp-check scripted model: this scenario fails the turn on purpose"}
	// errTooMany is retried after Retry-After.
	errTooMany = &Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "rate_limit_exceeded",
		Message: "lmp-check scripted model: rate limit reached on purpose, retry after 1 second", RetryAfter: time.Second}
)

// Scenario names.
const (
	ScenarioReply    = "reply"
	ScenarioTools    = "tools"
	ScenarioInterim  = "interim"
	ScenarioApproval = "approval"
	ScenarioFail     = "fail"
	ScenarioRetry    = "retry"
	ScenarioLong     = "long"
)

// ApprovalCommand is the approval scenario's terminal command: recursive
// delete, a pattern of Hermes' tools/approval_detection.py that asks for
// an exec approval under approvals.mode manual, and harmless when granted
// (the directory does not exist, so rm fails).
const ApprovalCommand = "rm -r ./lmp-check-scratch-does-not-exist"

var builtin = []Scenario{
	{Name: ScenarioReply, Description: "a streamed reply with reasoning",
		Replies: []Reply{{
			Reasoning: "The user asked for the reply scenario. I answer briefly, in a few streamed chunks.",
			Text:      "Hello from the lmp-check scripted model. This reply streamed in several chunks, after its reasoning.",
		}}},
	{Name: ScenarioTools, Description: "one turn of three model calls: two read_file calls at once, then terminal echo, then the answer",
		Replies: []Reply{
			{Calls: []Call{
				{Tool: "read_file", Args: map[string]any{"path": "README.md"}},
				{Tool: "read_file", Args: map[string]any{"path": "go.mod"}},
			}},
			{Calls: []Call{{Tool: "terminal", Args: map[string]any{"command": "echo lmp-check tools"}}}},
			{Reasoning: "Both files are read and the command ran.", Text: "Done: I read two files and ran one command."},
		}},
	{Name: ScenarioInterim, Description: "text and a tool call in one response (Hermes fires on_interim_message), then the answer",
		Replies: []Reply{
			{Text: "Checking the working directory first.",
				Calls: []Call{{Tool: "terminal", Args: map[string]any{"command": "echo lmp-check interim"}}}},
			{Text: "The working directory is fine."},
		}},
	{Name: ScenarioApproval, Description: "a dangerous terminal command: Hermes asks for an exec approval, then the answer",
		Replies: []Reply{
			{Text: "I need to remove a scratch directory.",
				Calls: []Call{{Tool: "terminal", Args: map[string]any{"command": ApprovalCommand}}}},
			{Text: "The approval is settled; the scratch directory is handled."},
		}},
	{Name: ScenarioFail, Description: "a 400 error Hermes does not retry: the turn fails",
		Replies: []Reply{{Err: errBadRequest}}},
	{Name: ScenarioRetry, Description: "a 429 with Retry-After on the first attempt, which Hermes retries; the retry answers",
		Replies: []Reply{{FailFirst: errTooMany, Text: "The retried call got through."}}},
	{Name: ScenarioLong, Description: "a stream of one real chunk a second until the client goes away (/stop)",
		Replies: []Reply{{Text: "This answer goes on until you stop it.\n", Endless: true}}},
}

// Scenarios returns the built-in scenarios, in a stable order.
func Scenarios() []Scenario { return slices.Clone(builtin) }

// Lookup returns the built-in scenario name.
func Lookup(name string) (Scenario, bool) {
	for _, s := range builtin {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}
