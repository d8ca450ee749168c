package hermes

import (
	"fmt"
	"maps"
	"math"
	"reflect"
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

// HookSpec is one plugin hook as Hermes fires it: the keyword arguments
// every call carries, the ones only some calls carry, and whether it runs
// through the stream-hook dispatcher (agent/plugin_stream_hooks.py).
type HookSpec struct {
	Name     string
	Kwargs   []Kwarg
	Optional []Kwarg
	// Implicit are the kwargs the dispatcher adds to every call
	// (telemetry_schema_version on a stream hook).
	Implicit []Kwarg
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

// Kwarg returns the hook's kwarg of that name.
func (h HookSpec) Kwarg(name string) (Kwarg, bool) {
	for _, list := range [][]Kwarg{h.Kwargs, h.Optional, h.Implicit} {
		for _, k := range list {
			if k.Name == name {
				return k, true
			}
		}
	}
	return Kwarg{}, false
}

// specOf derives a hook's spec from its Args struct.
func specOf(a Args) HookSpec {
	t := reflect.TypeOf(a)
	h := HookSpec{Name: a.HookName()}
	for _, f := range fieldsOf(t) {
		switch {
		case f.implicit:
			h.Implicit = append(h.Implicit, f.kwarg)
		case f.optional:
			h.Optional = append(h.Optional, f.kwarg)
		default:
			h.Kwargs = append(h.Kwargs, f.kwarg)
		}
	}
	_, h.Stream = t.FieldByName("StreamBase")
	return h
}

// Hooks is every hook the adapter acts on, as Hermes fires it, derived
// from the Args structs. A test holds it to the hook table of hermes.md.
var Hooks = specsOf(
	PreLLMCall{}, OnStreamStart{}, OnStreamDelta{}, OnInterimMessage{}, OnStreamEnd{},
	PreToolCall{}, PostToolCall{}, PreApprovalRequest{}, PostApprovalResponse{},
	AgentLoopStopped{}, OnSessionEnd{},
)

// MoreHooks are hooks Hermes has whose kwargs are typed here although the
// adapter does not act on them.
var MoreHooks = specsOf(OnSessionReset{})

// OtherHooks are the rest of Hermes' hooks (hermes_cli/plugins.py
// VALID_HOOKS): known by name, with kwargs of any shape.
var OtherHooks = []string{
	"post_llm_call", "pre_api_request", "post_api_request", "api_request_error",
	"transform_terminal_output", "transform_tool_result", "transform_llm_output",
	"on_session_start", "on_session_finalize",
	"subagent_start", "subagent_stop", "pre_gateway_dispatch",
}

func specsOf(as ...Args) []HookSpec {
	out := make([]HookSpec, len(as))
	for i, a := range as {
		out[i] = specOf(a)
	}
	return out
}

// HookByName returns the spec of a hook whose kwargs are typed here.
func HookByName(name string) (HookSpec, bool) {
	for _, list := range [2][]HookSpec{Hooks, MoreHooks} { // not concatenated: every hook fired asks
		for _, h := range list {
			if h.Name == name {
				return h, true
			}
		}
	}
	return HookSpec{}, false
}

// IsStreamHook reports whether Hermes delivers the hook through its
// stream-hook dispatcher.
func IsStreamHook(name string) bool {
	h, ok := HookByName(name)
	return ok && h.Stream
}

// KnownHooks lists every hook name Hermes has, sorted.
func KnownHooks() []string {
	out := slices.Clone(OtherHooks)
	for _, h := range slices.Concat(Hooks, MoreHooks) {
		out = append(out, h.Name)
	}
	sort.Strings(out)
	return out
}

// CheckHook checks a hook a test harness asks Hermes to fire, strictly: its
// name must be one of Hermes' hooks, and every kwarg it gives that Hermes
// defines must have Hermes' type (null only where Hermes passes None).
// Kwargs Hermes does not define pass, as extra kwargs reach a plugin's
// **kwargs. kw holds decoded JSON.
func CheckHook(name string, kw map[string]any) error {
	h, ok := HookByName(name)
	if !ok {
		if slices.Contains(OtherHooks, name) {
			return nil
		}
		return fmt.Errorf("unknown hook %q: Hermes' hooks are %s", name, strings.Join(KnownHooks(), ", "))
	}
	for _, k := range slices.Sorted(maps.Keys(kw)) {
		spec, ok := h.Kwarg(k)
		if !ok {
			continue
		}
		if !hasType(kw[k], spec.Type) {
			return &KwargError{name, k, spec.Type, jsonKind(kw[k])}
		}
	}
	return nil
}

// hasType reports whether the decoded JSON value v has type t.
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
