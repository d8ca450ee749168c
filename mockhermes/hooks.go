package mockhermes

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// KwargType is the JSON type Hermes gives a hook keyword argument.
type KwargType string

// Kwarg types, as a decoded JSON value holds them.
const (
	TypeString       KwargType = "string"
	TypeStringOrNull KwargType = "string or null"
	TypeInt          KwargType = "integer"
	TypeBool         KwargType = "boolean"
	TypeList         KwargType = "list"
	TypeObject       KwargType = "object"
	TypeAny          KwargType = "any"
)

// Kwarg is one keyword argument of a hook.
type Kwarg struct {
	Name string
	Type KwargType
}

// HookSpec is one plugin hook as Hermes fires it (../shared/hermes.md,
// "Plugin hooks"): the keyword arguments every call carries, the ones only
// some calls carry, and whether it runs through the stream-hook dispatcher
// (agent/plugin_stream_hooks.py: off the agent thread, its own FIFO, drop
// oldest, payloads over about 16 KiB dropped whole).
type HookSpec struct {
	Name     string
	Kwargs   []Kwarg
	Optional []Kwarg
	Stream   bool
}

// Names lists the kwargs every call of the hook carries.
func (h HookSpec) Names() []string {
	out := make([]string, len(h.Kwargs))
	for i, k := range h.Kwargs {
		out[i] = k.Name
	}
	return out
}

func (h HookSpec) kwarg(name string) (Kwarg, bool) {
	for _, k := range append(slices.Clip(h.Kwargs), h.Optional...) {
		if k.Name == name {
			return k, true
		}
	}
	if name == "telemetry_schema_version" && h.Stream {
		return Kwarg{name, TypeString}, true
	}
	return Kwarg{}, false
}

// streamBase are the kwargs of every stream hook
// (StreamDeliveryMixin._stream_hook_base_payload).
var streamBase = []Kwarg{
	{"turn_id", TypeString}, {"iteration", TypeInt}, {"session_id", TypeString},
	{"model", TypeString}, {"provider", TypeString}, {"surface", TypeString},
}

var toolKwargs = []Kwarg{
	{"tool_name", TypeString}, {"args", TypeObject}, {"task_id", TypeString}, {"session_id", TypeString},
	{"tool_call_id", TypeString}, {"turn_id", TypeString}, {"api_request_id", TypeString},
	{"middleware_trace", TypeList},
}

var approvalKwargs = []Kwarg{
	{"command", TypeString}, {"description", TypeString}, {"pattern_key", TypeString},
	{"pattern_keys", TypeList}, {"session_key", TypeString}, {"surface", TypeString},
	{"turn_id", TypeString}, {"tool_call_id", TypeString}, {"session_id", TypeString},
}

func with(base []Kwarg, more ...Kwarg) []Kwarg { return append(slices.Clip(base), more...) }

// Hooks is every hook the mock fires, with Hermes' keyword arguments. A test
// checks it against the hook table of ../shared/hermes.md.
var Hooks = []HookSpec{
	{Name: "pre_llm_call", Kwargs: []Kwarg{
		{"session_id", TypeString}, {"task_id", TypeString}, {"turn_id", TypeString},
		{"user_message", TypeString}, {"conversation_history", TypeList}, {"is_first_turn", TypeBool},
		{"model", TypeString}, {"platform", TypeString}, {"sender_id", TypeStringOrNull},
	}},
	{Name: "on_stream_start", Kwargs: streamBase, Stream: true},
	{Name: "on_stream_delta", Kwargs: with(streamBase, Kwarg{"delta", TypeString}, Kwarg{"kind", TypeString}), Stream: true},
	{Name: "on_interim_message", Kwargs: with(streamBase, Kwarg{"text", TypeString}, Kwarg{"already_streamed", TypeBool}), Stream: true},
	{Name: "on_stream_end", Kwargs: with(streamBase, Kwarg{"final_text", TypeString}, Kwarg{"finished", TypeBool}, Kwarg{"error", TypeStringOrNull}), Stream: true},
	{Name: "pre_tool_call", Kwargs: toolKwargs},
	{Name: "post_tool_call", Kwargs: with(toolKwargs,
		Kwarg{"result", TypeAny}, Kwarg{"duration_ms", TypeInt}, Kwarg{"status", TypeString},
		Kwarg{"error_type", TypeStringOrNull}, Kwarg{"error_message", TypeStringOrNull})},
	{Name: "pre_approval_request", Kwargs: approvalKwargs, Optional: []Kwarg{{"coalesced", TypeBool}}},
	{Name: "post_approval_response", Kwargs: with(approvalKwargs, Kwarg{"choice", TypeString}),
		Optional: []Kwarg{{"cancelled", TypeString}, {"decided_by", TypeString}}},
	{Name: "agent_loop_stopped", Kwargs: []Kwarg{
		{"session_key", TypeString}, {"platform", TypeString}, {"reason", TypeString}, {"invalidation_reason", TypeStringOrNull},
	}},
	{Name: "on_session_end", Kwargs: []Kwarg{
		{"session_id", TypeString}, {"task_id", TypeString}, {"turn_id", TypeString},
		{"completed", TypeBool}, {"interrupted", TypeBool}, {"model", TypeString}, {"platform", TypeString},
	}},
}

// otherHooks are hooks Hermes has (hermes_cli/plugins.py VALID_HOOKS) that
// the mock never fires; the driver accepts them, with any kwargs.
var otherHooks = []string{
	"post_llm_call", "pre_api_request", "post_api_request", "api_request_error",
	"transform_terminal_output", "transform_tool_result", "transform_llm_output",
	"on_session_start", "on_session_finalize", "on_session_reset",
	"subagent_start", "subagent_stop", "pre_gateway_dispatch",
}

// HookByName returns the spec of a hook the mock fires.
func HookByName(name string) (HookSpec, bool) {
	for _, h := range Hooks {
		if h.Name == name {
			return h, true
		}
	}
	return HookSpec{}, false
}

// isStreamHook reports whether Hermes delivers the hook through its
// stream-hook dispatcher.
func isStreamHook(name string) bool {
	h, ok := HookByName(name)
	return ok && h.Stream
}

// CheckHook checks a hook a test harness asks the mock to fire: its name
// must be one of Hermes' hooks, and every kwarg it gives that Hermes defines
// must have Hermes' type. Kwargs Hermes does not define pass through, like
// extra kwargs reach a plugin's **kwargs. kw holds decoded JSON.
func CheckHook(name string, kw map[string]any) error {
	h, ok := HookByName(name)
	if !ok {
		if slices.Contains(otherHooks, name) {
			return nil
		}
		return fmt.Errorf("unknown hook %q: Hermes' hooks are %s", name, strings.Join(KnownHooks(), ", "))
	}
	keys := make([]string, 0, len(kw))
	for k := range kw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		spec, ok := h.kwarg(k)
		if !ok {
			continue
		}
		if !hasType(kw[k], spec.Type) {
			return fmt.Errorf("hook %s: kwarg %s must be %s, got %s", name, k, spec.Type, jsonKind(kw[k]))
		}
	}
	return nil
}

// KnownHooks lists every hook name Hermes has, sorted.
func KnownHooks() []string {
	out := slices.Clone(otherHooks)
	for _, h := range Hooks {
		out = append(out, h.Name)
	}
	sort.Strings(out)
	return out
}

func hasType(v any, t KwargType) bool {
	switch t {
	case TypeString:
		_, ok := v.(string)
		return ok
	case TypeStringOrNull:
		_, ok := v.(string)
		return ok || v == nil
	case TypeInt:
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case TypeBool:
		_, ok := v.(bool)
		return ok
	case TypeList:
		_, ok := v.([]any)
		return ok
	case TypeObject:
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}

func jsonKind(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", t)
	case float64:
		return fmt.Sprintf("the number %v", t)
	case bool:
		return fmt.Sprintf("the boolean %v", t)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
