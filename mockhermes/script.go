package mockhermes

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Scenario is a parsed scenario script. See schema/mockscript.schema.json
// and docs/scenarios.md for the format.
type Scenario struct {
	Name        string
	Description string
	Usage       string
	Args        []ArgSpec
	Model       string
	Provider    string
	Faults      Faults
	Steps       []Step
	File        string // where it was loaded from
	// parts are the turns of a built-in gateway scenario (gatewayturns.go),
	// played one after the other; Steps is then the first one's.
	parts []gatewayPart
}

// ArgSpec declares a positional argument: "/mock burst 600" gives the first
// declared argument the value 600. Scripts refer to it as ${name}.
type ArgSpec struct {
	Name    string
	Type    string // "int", "string" or "duration"; "text" takes the rest of the line
	Default string
	Min     *int64
	Max     *int64
	Line    int
}

// Step kinds.
const (
	StepStream    = "stream"
	StepReasoning = "reasoning"
	StepInterim   = "interim"
	StepTools     = "tools"
	StepApproval  = "approval"
	StepWait      = "wait"
	StepFail      = "fail"
	StepRetry     = "retry"
	StepNotify    = "notify"
	StepRepeat    = "repeat"
	StepHook      = "hook"
)

// stepKinds lists the action keys a step may have, exactly one per step.
var stepKinds = []string{StepStream, StepReasoning, StepInterim, StepTools, StepApproval,
	StepWait, StepFail, StepRetry, StepNotify, StepRepeat, StepHook}

// Step is one step of a scenario. Kind says which fields apply. String
// fields may hold ${arg} references, substituted when the step runs.
type Step struct {
	Kind string
	Line int

	Text            string // stream, reasoning, interim, fail, retry
	Chunk           int    // stream, reasoning: characters per delta
	Every           string // stream, reasoning: pause between deltas (duration)
	AlreadyStreamed bool   // interim

	Tools    []ToolCall // tools
	Parallel bool       // tools: every pre_tool_call first, posts in reverse

	Approval *ApprovalStep     // approval
	Branches map[string][]Step // approval: granted, denied, timeout, cancelled

	Duration string // wait

	Notify *NotifyStep // notify

	Times string // repeat: a count, ${arg} or "forever"
	For   string // repeat: stop after this long (duration)
	Steps []Step // repeat

	HookName string         // hook
	Kwargs   map[string]any // hook

	Fork *ForkStep // fork (built-in scenarios only)
}

// ToolCall is one tool call of a tools step.
type ToolCall struct {
	Name         string
	Args         map[string]any
	Result       string
	DurationMS   int64
	Status       string // ok, error, blocked
	ErrorType    string
	ErrorMessage string
	// Bridge marks a bridge tool (tool_search, tool_describe): Hermes
	// fires its post_tool_call without a pre_tool_call.
	Bridge bool
}

// ApprovalStep asks for an exec approval inside a terminal tool call.
type ApprovalStep struct {
	Tool           string
	Command        string
	Description    string
	PatternKey     string
	AllowPermanent bool
	AllowSession   bool
	SmartDenied    bool
	Timeout        string // duration; the mock's approval timeout when empty
	// Smart is "approve" or "deny" when the auxiliary model decides first
	// (smart approvals); a deny then asks the human, who may override it.
	Smart string
	// Coalesced is how many identical calls in the same iteration
	// coalesce onto the first one's approval.
	Coalesced int
}

// NotifyStep is an outbound send() outside a turn: a cron result, a
// background task's output, a gateway notice. Hermes passes the text and
// no category, title or source; Metadata is passed as given.
type NotifyStep struct {
	Text     string
	Metadata map[string]any
}

// Approval branch names.
const (
	BranchGranted   = "granted"
	BranchDenied    = "denied"
	BranchTimeout   = "timeout"
	BranchCancelled = "cancelled"
)

// MaxRepeat caps a repeat count; a larger one is refused with a clear error.
const MaxRepeat = 100000

// MaxForever caps a "forever" repeat without a "for".
const MaxForever = 10 * time.Minute

var argRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// substitute replaces ${name} references with vars; unknown names stay.
func substitute(s string, vars map[string]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return argRef.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := vars[ref[2:len(ref)-1]]; ok {
			return v
		}
		return ref
	})
}

// substituteAny applies substitute to every string inside v.
func substituteAny(v any, vars map[string]string) any {
	switch t := v.(type) {
	case string:
		return substitute(t, vars)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = substituteAny(e, vars)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = substituteAny(e, vars)
		}
		return out
	}
	return v
}

// bindArgs matches positional args to the scenario's declared arguments and
// returns the variables scripts may use.
func (sc *Scenario) bindArgs(args []string) (map[string]string, error) {
	vars := map[string]string{"args": strings.Join(args, " ")}
	for i, a := range sc.Args {
		v := a.Default
		switch {
		case a.Type == "text" && i < len(args):
			v = strings.Join(args[i:], " ")
		case i < len(args):
			v = args[i]
		}
		if a.Type == "duration" {
			if d, err := time.ParseDuration(v); err != nil || d < 0 {
				return nil, fmt.Errorf("%s: argument %s must be a duration such as 20ms, got %q (usage: %s)", sc.Name, a.Name, v, sc.Usage)
			}
		}
		if a.Type == "int" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: argument %s must be an integer, got %q (usage: %s)", sc.Name, a.Name, v, sc.Usage)
			}
			if a.Min != nil && n < *a.Min {
				return nil, fmt.Errorf("%s: argument %s must be at least %d, got %d", sc.Name, a.Name, *a.Min, n)
			}
			if a.Max != nil && n > *a.Max {
				return nil, fmt.Errorf("%s: argument %s must be at most %d, got %d", sc.Name, a.Name, *a.Max, n)
			}
		}
		vars[a.Name] = v
	}
	if len(args) > len(sc.Args) && (len(sc.Args) == 0 || sc.Args[len(sc.Args)-1].Type != "text") {
		return nil, fmt.Errorf("%s: too many arguments (usage: %s)", sc.Name, sc.Usage)
	}
	return vars, nil
}

// startsRun reports whether playing the scenario starts an agent turn.
func (sc *Scenario) startsRun() bool { return stepsStartRun(sc.Steps) }

func stepsStartRun(steps []Step) bool {
	for _, s := range steps {
		switch s.Kind {
		case StepStream, StepReasoning, StepInterim, StepTools, StepApproval, StepFail, StepRetry:
			return true
		case StepRepeat:
			if stepsStartRun(s.Steps) {
				return true
			}
		}
	}
	return false
}
