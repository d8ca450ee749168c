package model

import (
	"encoding/json"
	"testing"
)

// hermesTools is the tools list of a Hermes agent-loop request, shortened.
const hermesTools = `"tools": [
  {"type": "function", "function": {"name": "terminal", "description": "run a command", "parameters": {"type": "object"}}},
  {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}
]`

// TestRouteOfHermesShapes routes requests shaped as Hermes sends them
// (../shared/hermes.md, "How Hermes calls its model"): a rewritten user
// message, content parts, an assistant turn with tool_calls and null
// content, reasoning_content in the history, parallel tool results, and the
// side calls that quote the conversation.
func TestRouteOfHermesShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		scenario   string // "" when no scenario plays
		reply      int
		by         string
	}{
		{name: "a user message Hermes put a reply quote and a sender prefix in front of",
			body: `{"model": "m", "stream": true, "stream_options": {"include_usage": true}, "reasoning_effort": "high", "think": true, ` + hermesTools + `,
			  "messages": [{"role": "system", "content": "You are Hermes."},
			               {"role": "user", "content": "[Replying to Ann: \"earlier\"]\n\n[Bob] please lmp-model:tools now"}]}`,
			scenario: "tools", reply: 0, by: "user message"},
		{name: "content as an array of parts",
			body:     `{` + hermesTools + `, "messages": [{"role": "user", "content": [{"type": "text", "text": "lmp-model:reply"}, {"type": "image_url", "image_url": {"url": "data:,"}}]}]}`,
			scenario: "reply", reply: 0, by: "user message"},
		{name: "tool results after an assistant turn with tool_calls, null content and reasoning_content",
			body: `{` + hermesTools + `, "messages": [
			  {"role": "user", "content": "lmp-model:tools"},
			  {"role": "assistant", "content": null, "reasoning_content": "I will read two files.",
			   "tool_calls": [{"id": "call_lmp_tools_0_0_ab12cd34", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"README.md\"}"}},
			                  {"id": "call_lmp_tools_0_1_ab12cd34", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"go.mod\"}"}}]},
			  {"role": "tool", "tool_call_id": "call_lmp_tools_0_1_ab12cd34", "content": "module x"},
			  {"role": "tool", "tool_call_id": "call_lmp_tools_0_0_ab12cd34", "content": "# x"}]}`,
			scenario: "tools", reply: 1, by: "tool calls"},
		{name: "the tool calls name the scenario even when the user message lost its marker (compressed history)",
			body: `{` + hermesTools + `, "messages": [
			  {"role": "user", "content": "[summary of earlier turns]"},
			  {"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "call_lmp_interim_0_0_0badf00d", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]},
			  {"role": "tool", "tool_call_id": "call_lmp_interim_0_0_0badf00d", "content": "ok"}]}`,
			scenario: "interim", reply: 1, by: "tool calls"},
		{name: "ids a client renamed: the assistant turns since the marker are counted",
			body: `{` + hermesTools + `, "messages": [
			  {"role": "user", "content": "lmp-model:tools"},
			  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]},
			  {"role": "tool", "tool_call_id": "call_1", "content": "x"},
			  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_2", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]},
			  {"role": "tool", "tool_call_id": "call_2", "content": "y"}]}`,
			scenario: "tools", reply: 2, by: "user message"},
		{name: "a new user message after a finished scenario plays what it says, not the old one",
			body: `{` + hermesTools + `, "messages": [
			  {"role": "user", "content": "lmp-model:tools"},
			  {"role": "assistant", "content": "Done.", "reasoning_content": "r"},
			  {"role": "user", "content": "thanks"}]}`},
		{name: "a title request quotes the marker and offers no tools",
			body: `{"messages": [{"role": "system", "content": "Write a title."}, {"role": "user", "content": "User: lmp-model:fail\nAssistant: ..."}]}`},
		{name: "the bare marker without tools (a client of its own) plays",
			body:     `{"messages": [{"role": "user", "content": " lmp-model:long\n"}]}`,
			scenario: "long", reply: 0, by: "user message"},
		{name: "no marker", body: `{` + hermesTools + `, "messages": [{"role": "user", "content": "hello"}]}`},
		{name: "an unknown scenario", body: `{` + hermesTools + `, "messages": [{"role": "user", "content": "lmp-model:nope"}]}`},
		{name: "a marker inside a word", body: `{` + hermesTools + `, "messages": [{"role": "user", "content": "xlmp-model:tools"}]}`},
		{name: "the last message is the assistant's", body: `{` + hermesTools + `, "messages": [{"role": "user", "content": "lmp-model:reply"}, {"role": "assistant", "content": "Hi"}]}`},
		{name: "tool results past the scenario's last reply",
			body: `{` + hermesTools + `, "messages": [
			  {"role": "user", "content": "lmp-model:approval"},
			  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_lmp_approval_1_0_00000000", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]},
			  {"role": "tool", "tool_call_id": "call_lmp_approval_1_0_00000000", "content": "denied"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req Request
			if err := json.Unmarshal([]byte(tc.body), &req); err != nil {
				t.Fatal(err)
			}
			rt, why, ok := RouteOf(&req)
			if tc.scenario == "" {
				if ok {
					t.Fatalf("routed to %s reply %d, want no scenario", rt.Scenario.Name, rt.Reply)
				}
				if why == "" {
					t.Errorf("no scenario, and no reason why")
				}
				return
			}
			if !ok || rt.Scenario.Name != tc.scenario || rt.Reply != tc.reply || rt.By != tc.by {
				t.Fatalf("routed to %q reply %d by %q (ok %t, %s), want %q reply %d by %q", rt.Scenario.Name, rt.Reply, rt.By, ok, why, tc.scenario, tc.reply, tc.by)
			}
		})
	}
}

// TestCallIDsRoundTrip: the ids the model mints name their scenario and
// reply, and nothing else parses as one.
func TestCallIDsRoundTrip(t *testing.T) {
	for _, sc := range Scenarios() {
		id := callID(sc.Name, 2, 1, newNonce())
		name, r, ok := parseCallID(id)
		if !ok || name != sc.Name || r != 2 {
			t.Errorf("%s: parsed as %q %d %t", id, name, r, ok)
		}
	}
	for _, id := range []string{"call_1", "call_lmp_tools", "call_lmp_tools_x_0_ab", "call_lmp_tools_-1_0_ab", "call_lmp_tools_0_0"} {
		if _, _, ok := parseCallID(id); ok {
			t.Errorf("%q parsed as a call id of the model's", id)
		}
	}
}

// TestScenarioNamesAreMarkers: every scenario's marker finds it, so no name
// holds a character the marker pattern stops at.
func TestScenarioNamesAreMarkers(t *testing.T) {
	for _, sc := range Scenarios() {
		if name, ok := findMarker("go " + sc.Marker() + "."); !ok || name != sc.Name {
			t.Errorf("marker %q finds %q", sc.Marker(), name)
		}
	}
}
