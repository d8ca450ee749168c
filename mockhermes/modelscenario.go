package mockhermes

import (
	"regexp"
	"strings"

	"github.com/loomi-lmp/lmpkit/model"
)

// modelScenario is the mock's playing of a scenario of lmp-check's
// scripted model (package model), named by its marker ("lmp-model:tools"),
// or nil when there is no such scenario. A user message carrying the
// marker plays it, so that --triggers hermes means the same turn here as
// in a real Hermes whose model is the scripted one: the model's replies are
// the one definition, and this turns each into the steps of one model
// call, as the agent loop plays them. The tool results, which a real
// Hermes gets from its tools, are the mock's own; a terminal command that
// Hermes' dangerous-command check matches asks for an exec approval, and
// every outcome of it goes on with the model's next reply.
func modelScenario(name string) *Scenario {
	short, ok := strings.CutPrefix(name, model.MarkerPrefix)
	if !ok {
		return nil
	}
	ms, ok := model.Lookup(short)
	if !ok {
		return nil
	}
	return &Scenario{Name: name, Description: ms.Description + " (lmp-check's scripted model)",
		Usage: name, File: "model:" + short, Steps: modelSteps(ms.Replies)}
}

// dangerousCommand matches the commands the scripted model may run that
// Hermes' tools/approval_detection.py asks about (../shared/hermes.md):
// a recursive delete, chmod 777, git reset --hard.
var dangerousCommand = regexp.MustCompile(`\brm\s+-[a-zA-Z]*[rR]|\bchmod\s+(-R\s+)?777\b|\bgit\s+reset\s+--hard\b`)

// The pace of the model's deltas in the mock: its characters per delta
// (model.Options.Chunk's default) and a pause like the mock's own scenarios'.
const (
	modelChunk = 12
	modelEvery = "5ms"
)

// modelSteps turns the model's replies, one per model call, into steps.
func modelSteps(replies []model.Reply) []Step {
	var steps []Step
	for i, rp := range replies {
		if rp.FailFirst != nil {
			steps = append(steps, Step{Kind: StepRetry, Text: rp.FailFirst.Message})
		}
		if rp.Err != nil {
			return append(steps, Step{Kind: StepFail, Text: rp.Err.Message})
		}
		if rp.Reasoning != "" {
			steps = append(steps, Step{Kind: StepReasoning, Text: rp.Reasoning, Chunk: modelChunk, Every: modelEvery})
		}
		if rp.Text != "" {
			steps = append(steps, Step{Kind: StepStream, Text: rp.Text, Chunk: modelChunk, Every: modelEvery})
		}
		if rp.Endless { // one more real chunk a second, as the model streams
			return append(steps, Step{Kind: StepRepeat, Times: "forever", For: MaxForever.String(), Steps: []Step{
				{Kind: StepWait, Duration: "1s"},
				{Kind: StepStream, Text: "One more chunk of an endless answer. ", Chunk: 1 << 10},
			}})
		}
		var tools []ToolCall
		var approval *ApprovalStep
		for _, c := range rp.Calls {
			cmd, _ := c.Args["command"].(string)
			if c.Tool == "terminal" && dangerousCommand.MatchString(cmd) {
				approval = &ApprovalStep{Tool: c.Tool, Command: cmd, Description: "dangerous command",
					PatternKey: "dangerous command", AllowPermanent: true, AllowSession: true}
				continue
			}
			tools = append(tools, ToolCall{Name: c.Tool, Args: c.Args, Result: "mock result of " + c.Tool, DurationMS: 5, Status: "ok"})
		}
		if len(tools) > 0 {
			steps = append(steps, Step{Kind: StepTools, Tools: tools, Parallel: len(tools) > 1})
		}
		if approval != nil { // every outcome goes on with the next reply
			next := modelSteps(replies[i+1:])
			return append(steps, Step{Kind: StepApproval, Approval: approval, Branches: map[string][]Step{
				BranchGranted: next, BranchDenied: next, BranchTimeout: next,
			}})
		}
	}
	return steps
}
