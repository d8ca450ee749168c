package hermes

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// samples holds one filled value of every typed hook.
var samples = []Args{
	PreLLMCall{SessionID: "s1", TaskID: "s1", TurnID: "t1", UserMessage: "hi", ConversationHistory: []any{map[string]any{"role": "user"}},
		IsFirstTurn: true, Model: "m", Platform: Platform, ParentSessionID: "p", SenderID: "d1"},
	OnStreamStart{StreamBase{TurnID: "t1", Iteration: 1, SessionID: "s1", Model: "m", Provider: "p", Surface: Platform, TelemetrySchemaVersion: TelemetrySchemaVersion}},
	OnStreamDelta{StreamBase: StreamBase{TurnID: "t1", Iteration: 2, TelemetrySchemaVersion: TelemetrySchemaVersion}, Delta: "x", Kind: "text"},
	OnInterimMessage{StreamBase: StreamBase{TurnID: "t1", TelemetrySchemaVersion: TelemetrySchemaVersion}, Text: "y", AlreadyStreamed: true},
	OnStreamEnd{StreamBase: StreamBase{TurnID: "t1", TelemetrySchemaVersion: TelemetrySchemaVersion}, FinalText: "z", Error: None("boom")},
	PreToolCall{ToolCall{ToolName: "terminal", Args: map[string]any{"command": "ls"}, TaskID: "s1", SessionID: "s1", ToolCallID: "c1", TurnID: "t1", MiddlewareTrace: []any{}}},
	PostToolCall{ToolCall: ToolCall{ToolName: "terminal", Args: map[string]any{}, ToolCallID: "c1", MiddlewareTrace: []any{}}, Result: "ok", DurationMS: 12, Status: "ok", ErrorType: nil, ErrorMessage: None("e")},
	PreApprovalRequest{Approval: Approval{Command: "rm", PatternKeys: []string{"rm"}, SessionKey: SessionKeyPrefix + "c"}, Coalesced: true},
	PostApprovalResponse{Approval: Approval{Command: "rm", PatternKeys: []string{}}, Choice: "once", Cancelled: "interrupt", DecidedBy: "aux_llm"},
	AgentLoopStopped{SessionKey: "k", Platform: Platform, Reason: "user_stop", InvalidationReason: None("stop_command")},
	OnSessionEnd{SessionID: "s1", TaskID: "s1", TurnID: "t1", Completed: true, Failed: false, TurnExitReason: "text_response(stop)", Model: "m", Platform: Platform},
	OnSessionReset{SessionID: "s2", Platform: Platform},
}

// decodeAs decodes kw into the type of like.
func decodeAs(like Args, kw map[string]any) (Args, error) {
	switch like.(type) {
	case PreLLMCall:
		return Decode[PreLLMCall](kw)
	case OnStreamStart:
		return Decode[OnStreamStart](kw)
	case OnStreamDelta:
		return Decode[OnStreamDelta](kw)
	case OnInterimMessage:
		return Decode[OnInterimMessage](kw)
	case OnStreamEnd:
		return Decode[OnStreamEnd](kw)
	case PreToolCall:
		return Decode[PreToolCall](kw)
	case PostToolCall:
		return Decode[PostToolCall](kw)
	case PreApprovalRequest:
		return Decode[PreApprovalRequest](kw)
	case PostApprovalResponse:
		return Decode[PostApprovalResponse](kw)
	case AgentLoopStopped:
		return Decode[AgentLoopStopped](kw)
	case OnSessionEnd:
		return Decode[OnSessionEnd](kw)
	case OnSessionReset:
		return Decode[OnSessionReset](kw)
	}
	panic("no decoder for " + like.HookName())
}

// TestKwargsRoundTrip: what Encode builds passes the driver's strict check
// once through JSON, carries every kwarg of the hook's spec, and decodes
// back to the same value.
func TestKwargsRoundTrip(t *testing.T) {
	for _, a := range samples {
		raw, err := json.Marshal(Encode(a))
		if err != nil {
			t.Fatal(err)
		}
		var kw map[string]any
		if err := json.Unmarshal(raw, &kw); err != nil {
			t.Fatal(err)
		}
		if err := CheckHook(a.HookName(), kw); err != nil {
			t.Errorf("%s: %v", a.HookName(), err)
		}
		spec, _ := HookByName(a.HookName())
		for _, k := range spec.Names() {
			if _, ok := kw[k]; !ok {
				t.Errorf("%s: Encode left out %s", a.HookName(), k)
			}
		}
		back, err := decodeAs(a, kw)
		if err != nil {
			t.Fatalf("%s: %v", a.HookName(), err)
		}
		if !reflect.DeepEqual(back, a) {
			t.Errorf("%s round trip:\n got %#v\nwant %#v", a.HookName(), back, a)
		}
	}
}

// TestEncodeOptionalAndImplicit: an optional kwarg is left out when unset;
// a stream hook always carries telemetry_schema_version.
func TestEncodeOptionalAndImplicit(t *testing.T) {
	kw := Encode(PreApprovalRequest{})
	if _, ok := kw["coalesced"]; ok {
		t.Errorf("coalesced given when unset: %v", kw)
	}
	if kw := Encode(OnStreamStart{}); kw["telemetry_schema_version"] != TelemetrySchemaVersion {
		t.Errorf("telemetry_schema_version = %#v", kw["telemetry_schema_version"])
	}
	if kw := Encode(OnStreamEnd{}); kw["error"] != nil {
		t.Errorf("error = %#v, want None", kw["error"])
	}
}

// TestDecodeLenient: missing and null kwargs read as zero; numbers arrive
// as float64, Go integers or json.Number; unknown kwargs are ignored.
func TestDecodeLenient(t *testing.T) {
	for _, n := range []any{3.0, 3, int64(3), json.Number("3")} {
		a, err := Decode[OnStreamDelta](map[string]any{"iteration": n, "turn_id": "t", "kind": nil, "extra": []any{1}})
		if err != nil || a.Iteration != 3 || a.TurnID != "t" || a.Kind != "" {
			t.Errorf("iteration %#v: %+v, %v", n, a, err)
		}
	}
}

// TestDecodeWrongType: a kwarg of the wrong type is a *KwargError naming
// the hook, the kwarg and both types.
func TestDecodeWrongType(t *testing.T) {
	for _, kw := range []map[string]any{
		{"completed": "yes"}, {"turn_id": 7.0}, {"failed": 1.0},
	} {
		_, err := Decode[OnSessionEnd](kw)
		var ke *KwargError
		if !errors.As(err, &ke) || ke.Hook != HookOnSessionEnd {
			t.Errorf("%v: err = %v, want a KwargError", kw, err)
		}
	}
	if _, err := Decode[PreApprovalRequest](map[string]any{"pattern_keys": []any{"a", 1.0}}); err == nil {
		t.Error("a list of a string and a number read as pattern_keys")
	}
	if _, err := Decode[OnStreamStart](map[string]any{"iteration": 1e300}); err == nil {
		t.Error("iteration 1e300 read as an int")
	}
}

// TestCheckHookStrict: the driver's check refuses what Decode would read
// leniently, names unknown hooks, and passes Hermes' other hooks.
func TestCheckHookStrict(t *testing.T) {
	for _, tc := range []struct {
		name string
		kw   map[string]any
		ok   bool
	}{
		{HookOnSessionEnd, map[string]any{"failed": nil}, false},
		{HookOnSessionEnd, map[string]any{"turn_exit_reason": 1.0}, false},
		{HookPreLLMCall, map[string]any{"parent_session_id": "p"}, true},
		{HookPostToolCall, map[string]any{"duration_ms": 1.5}, false},
		{HookOnStreamEnd, map[string]any{"error": nil}, true},
		{HookOnSessionReset, map[string]any{"session_id": 1.0}, false},
		{"subagent_stop", map[string]any{"anything": 1.0}, true},
		{"on_strem_start", nil, false},
	} {
		if err := CheckHook(tc.name, tc.kw); (err == nil) != tc.ok {
			t.Errorf("%s %v: err = %v, want ok=%v", tc.name, tc.kw, err, tc.ok)
		}
	}
}

// TestChatOfKey reads the chat out of every profile's key, colons and all,
// and nothing out of another platform's.
func TestChatOfKey(t *testing.T) {
	for _, p := range []string{"", "default", "main", "work"} {
		if c, ok := ChatOfKey(SessionKey(p, "a:b")); !ok || c != "a:b" {
			t.Errorf("profile %q: %q %v", p, c, ok)
		}
	}
	for _, k := range []string{"agent:main:telegram:dm:1", "agent::loomi:dm:1", "agent:main:loomi:dm:", "main:loomi:dm:1"} {
		if c, ok := ChatOfKey(k); ok {
			t.Errorf("%q read as chat %q", k, c)
		}
	}
}
