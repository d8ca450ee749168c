package mockhermes

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// hookKwargs is the exact keyword-argument set of each Hermes hook the mock
// fires (the table of Hermes' plugin hooks), besides telemetry_schema_version.
var hookKwargs = map[string][]string{
	"on_stream_start":        {"turn_id", "iteration", "session_id", "model", "provider", "surface"},
	"on_stream_delta":        {"turn_id", "iteration", "session_id", "model", "provider", "surface", "delta", "kind"},
	"on_interim_message":     {"turn_id", "iteration", "session_id", "model", "provider", "surface", "text", "already_streamed"},
	"on_stream_end":          {"turn_id", "iteration", "session_id", "model", "provider", "surface", "final_text", "finished", "error"},
	"pre_tool_call":          {"tool_name", "args", "task_id", "session_id", "tool_call_id", "turn_id", "api_request_id", "middleware_trace"},
	"post_tool_call":         {"tool_name", "args", "task_id", "session_id", "tool_call_id", "turn_id", "api_request_id", "middleware_trace", "result", "duration_ms", "status", "error_type", "error_message"},
	"pre_approval_request":   {"command", "description", "pattern_key", "pattern_keys", "session_key", "surface", "turn_id", "tool_call_id", "session_id"},
	"post_approval_response": {"command", "description", "pattern_key", "pattern_keys", "session_key", "surface", "turn_id", "tool_call_id", "session_id", "choice"},
	"agent_loop_stopped":     {"session_key", "platform", "reason", "invalidation_reason"},
}

// checkHookShape fails unless e carries exactly its hook's kwargs, with the
// types Hermes gives them.
func checkHookShape(t *testing.T, e event) {
	t.Helper()
	want, ok := hookKwargs[e.Name]
	if !ok {
		t.Errorf("mock fired a hook Hermes does not have: %s", e.Name)
		return
	}
	var got []string
	for k := range e.Kwargs {
		if k != "telemetry_schema_version" {
			got = append(got, k)
		}
	}
	sort.Strings(got)
	w := slices.Sorted(slices.Values(want))
	if !slices.Equal(got, w) {
		t.Errorf("%s kwargs = %v, want %v", e.Name, got, w)
	}
	if e.Kwargs["telemetry_schema_version"] != float64(TelemetrySchemaVersion) {
		t.Errorf("%s: telemetry_schema_version = %v", e.Name, e.Kwargs["telemetry_schema_version"])
	}
	kw := e.Kwargs
	isInt := func(k string) {
		if f, ok := kw[k].(float64); !ok || f != math.Trunc(f) || f < 0 {
			t.Errorf("%s: %s = %v, want a non-negative integer", e.Name, k, kw[k])
		}
	}
	isString := func(k string) {
		if _, ok := kw[k].(string); !ok {
			t.Errorf("%s: %s = %#v, want a string", e.Name, k, kw[k])
		}
	}
	nullOrString := func(k string) {
		if _, ok := kw[k].(string); !ok && kw[k] != nil {
			t.Errorf("%s: %s = %#v, want null or a string", e.Name, k, kw[k])
		}
	}
	switch e.Name {
	case "on_stream_start", "on_stream_delta", "on_interim_message", "on_stream_end":
		isInt("iteration")
		for _, k := range []string{"turn_id", "session_id", "model", "provider"} {
			isString(k)
		}
		if kw["surface"] != Surface {
			t.Errorf("%s: surface = %v", e.Name, kw["surface"])
		}
	}
	switch e.Name {
	case "on_stream_delta":
		isString("delta")
		if k := kw["kind"]; k != "text" && k != "reasoning" {
			t.Errorf("on_stream_delta: kind = %v", k)
		}
	case "on_interim_message":
		isString("text")
		if _, ok := kw["already_streamed"].(bool); !ok {
			t.Errorf("on_interim_message: already_streamed = %v", kw["already_streamed"])
		}
	case "on_stream_end":
		isString("final_text")
		nullOrString("error")
		if _, ok := kw["finished"].(bool); !ok {
			t.Errorf("on_stream_end: finished = %v", kw["finished"])
		}
		// On failure Hermes reports final_text="" and finished=false.
		if kw["error"] != nil && (kw["final_text"] != "" || kw["finished"] != false) {
			t.Errorf("failed on_stream_end = %v", kw)
		}
	case "pre_tool_call", "post_tool_call":
		for _, k := range []string{"tool_name", "task_id", "session_id", "tool_call_id", "turn_id", "api_request_id"} {
			isString(k)
		}
		if kw["task_id"] != kw["session_id"] {
			t.Errorf("%s: task_id %v != session_id %v in a gateway turn", e.Name, kw["task_id"], kw["session_id"])
		}
		if e.Name == "post_tool_call" {
			isInt("duration_ms")
			nullOrString("error_type")
			nullOrString("error_message")
			if s := kw["status"]; s != "ok" && s != "error" && s != "blocked" {
				t.Errorf("post_tool_call: status = %v", s)
			}
		}
	case "pre_approval_request", "post_approval_response":
		if s := kw["surface"]; s != "gateway" && s != "smart" {
			t.Errorf("%s: surface = %v", e.Name, s)
		}
		if !strings.HasPrefix(kw["session_key"].(string), "agent:main:loomi:dm:") {
			t.Errorf("%s: session_key = %v", e.Name, kw["session_key"])
		}
		if e.Name == "post_approval_response" {
			isString("choice")
		}
	}
}

// TestEveryHookHasHermesKwargs plays every built-in scenario, answers the
// approval, stops the long one, and checks that every hook the mock fired
// has exactly Hermes' name, keyword arguments and argument types.
func TestEveryHookHasHermesKwargs(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	for _, name := range []string{"reply", "tools", "fail", "interim", "notify", "quirks"} {
		waitDone(t, play(t, m, name))
	}
	waitDone(t, play(t, m, "burst", "3", "0s"))

	ap := play(t, m, "approval")
	f.waitFor(t, "the approval prompt", func(evs []event) bool { return count(evs, "prompt") == 1 })
	if n, _ := m.ResolveGatewayApproval(ctx, SessionKey(ap.TaskID), lmp.ChoiceOnce, false, "", ""); n != 1 {
		t.Fatalf("resolved %d approvals", n)
	}
	waitDone(t, ap)

	long := play(t, m, "long")
	f.waitHook(t, "on_stream_delta", count(f.snapshot(), "on_stream_delta")+2)
	if err := m.InterruptSession(ctx, SessionKey(long.TaskID), long.TaskID); err != nil {
		t.Fatal(err)
	}
	waitDone(t, long)
	f.waitHook(t, "agent_loop_stopped", 1)

	seen := map[string]bool{}
	for _, e := range f.snapshot() {
		if e.Kind == "hook" {
			seen[e.Name] = true
			checkHookShape(t, e)
		}
	}
	for name := range hookKwargs {
		if !seen[name] {
			t.Errorf("no built-in scenario fired %s", name)
		}
	}
}

// TestDefaultApprovalWaitIs300s: without a configured timeout the mock
// waits Hermes' 300 s, which the prompt's deadline shows.
func TestDefaultApprovalWaitIs300s(t *testing.T) {
	m, _ := newTestMock(t, Options{})
	before := time.Now()
	ap, err := m.StartApproval(context.Background(), ApprovalSpec{ChatID: "c", Command: "rm -rf x", AllowPermanent: true, AllowSession: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := ap.deadline.Sub(before); d < 300*time.Second || d > 301*time.Second {
		t.Fatalf("default approval wait = %v, want 300s", d)
	}
}
