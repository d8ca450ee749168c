package mockhermes

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The script as written: what the YAML decoder fills, before the checks
// that turn it into a Scenario (parse.go). Every field is an at, so that a
// check that rejects a value names the line it is on.

type scriptDoc struct {
	Name        at[string]       `yaml:"name"`
	Description at[string]       `yaml:"description"`
	Usage       at[string]       `yaml:"usage"`
	Model       at[string]       `yaml:"model"`
	Provider    at[string]       `yaml:"provider"`
	Args        at[[]at[argDoc]] `yaml:"args"`
	Faults      at[faultsDoc]    `yaml:"faults"`
	Steps       at[[]stepDoc]    `yaml:"steps"`
}

type argDoc struct {
	Name    at[string] `yaml:"name"`
	Type    at[string] `yaml:"type"`
	Default at[string] `yaml:"default"`
	Min     at[int64]  `yaml:"min"`
	Max     at[int64]  `yaml:"max"`
}

type faultsDoc struct {
	Reorder    at[bool]  `yaml:"reorder"`
	DropEvery  at[int64] `yaml:"drop_every"`
	Duplicate  at[bool]  `yaml:"duplicate"`
	Interleave at[bool]  `yaml:"interleave"`
}

// stepDoc is one step: exactly one action key (stepKinds) and the
// modifiers that action allows.
type stepDoc struct {
	Kind string // the action key
	Line int
	stepFields
}

type stepFields struct {
	Stream    at[string]        `yaml:"stream"`
	Reasoning at[string]        `yaml:"reasoning"`
	Interim   at[string]        `yaml:"interim"`
	Tools     at[[]at[toolDoc]] `yaml:"tools"`
	Approval  at[approvalDoc]   `yaml:"approval"`
	Wait      at[string]        `yaml:"wait"`
	Fail      at[string]        `yaml:"fail"`
	Retry     at[string]        `yaml:"retry"`
	Notify    at[notifyDoc]     `yaml:"notify"`
	Repeat    at[string]        `yaml:"repeat"`
	Hook      at[string]        `yaml:"hook"`

	// Modifiers.
	Chunk           at[int64]          `yaml:"chunk"`
	Every           at[string]         `yaml:"every"`
	AlreadyStreamed at[bool]           `yaml:"already_streamed"`
	Parallel        at[bool]           `yaml:"parallel"`
	Granted         at[[]stepDoc]      `yaml:"granted"`
	Denied          at[[]stepDoc]      `yaml:"denied"`
	Timeout         at[[]stepDoc]      `yaml:"timeout"`
	Cancelled       at[[]stepDoc]      `yaml:"cancelled"`
	For             at[string]         `yaml:"for"`
	Steps           at[[]stepDoc]      `yaml:"steps"`
	Kwargs          at[map[string]any] `yaml:"kwargs"`
}

type toolDoc struct {
	Name         at[string]         `yaml:"name"`
	Args         at[map[string]any] `yaml:"args"`
	Result       at[string]         `yaml:"result"`
	DurationMS   at[int64]          `yaml:"duration_ms"`
	Status       at[string]         `yaml:"status"`
	ErrorType    at[string]         `yaml:"error_type"`
	ErrorMessage at[string]         `yaml:"error_message"`
	Bridge       at[bool]           `yaml:"bridge"`
}

type approvalDoc struct {
	Tool           at[string] `yaml:"tool"`
	Command        at[string] `yaml:"command"`
	Description    at[string] `yaml:"description"`
	PatternKey     at[string] `yaml:"pattern_key"`
	AllowPermanent at[bool]   `yaml:"allow_permanent"`
	AllowSession   at[bool]   `yaml:"allow_session"`
	SmartDenied    at[bool]   `yaml:"smart_denied"`
	Timeout        at[string] `yaml:"timeout"`
	Smart          at[string] `yaml:"smart"`
	Coalesced      at[int64]  `yaml:"coalesced"`
}

// notifyDoc is a notify step. category, title, source and
// requires_attention are accepted for older scripts and passed in the
// metadata, though Hermes itself never passes them.
type notifyDoc struct {
	Text              at[string]         `yaml:"text"`
	Title             at[string]         `yaml:"title"`
	Source            at[string]         `yaml:"source"`
	Category          at[string]         `yaml:"category"`
	RequiresAttention at[bool]           `yaml:"requires_attention"`
	Metadata          at[map[string]any] `yaml:"metadata"`
}

// at is a value of the script with where it was written. Set says the key
// was there; Tag is the value's YAML tag (!!str, !!int, !!null …); Items
// counts a list's items as written, those that failed to decode included. A
// mapping decoded into a struct must use only the struct's keys, as the
// root's decoder requires (KnownFields), which a value's own Decode does
// not.
type at[T any] struct {
	V            T
	Line, Column int
	Tag          string
	Items        int
	Set          bool
}

func (a *at[T]) UnmarshalYAML(n *yaml.Node) error {
	a.Line, a.Column, a.Tag, a.Set = n.Line, n.Column, n.ShortTag(), true
	if n.Kind == yaml.SequenceNode {
		a.Items = len(n.Content)
	}
	unknown := unknownKeys(n, reflect.TypeFor[T]())
	err := n.Decode(&a.V)
	return joinTypeErrors(unknown, err)
}

// UnmarshalYAML reads a step's action key, then its fields.
func (s *stepDoc) UnmarshalYAML(n *yaml.Node) error {
	s.Line = n.Line
	if n.Kind != yaml.MappingNode {
		return typeErrorf(n, "a step must be a mapping with one of %s, got %s", strings.Join(stepKinds, ", "), kindName(n))
	}
	var kinds []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		for _, kind := range stepKinds {
			if n.Content[i].Value == kind {
				kinds = append(kinds, n.Content[i])
			}
		}
	}
	switch len(kinds) {
	case 0:
		return typeErrorf(n, "step has no action: expected one of %s", strings.Join(stepKinds, ", "))
	case 1:
	default:
		return typeErrorf(kinds[1], "step has two actions, %s and %s: split it into two steps", kinds[0].Value, kinds[1].Value)
	}
	s.Kind = kinds[0].Value
	return joinTypeErrors(unknownKeys(n, reflect.TypeFor[stepFields]()), n.Decode(&s.stepFields))
}

// unknownKeys lists, as the YAML decoder words them, the keys of the
// mapping n that the struct type t has no field for.
func unknownKeys(n *yaml.Node, t reflect.Type) []string {
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return nil
	}
	known := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		known[name] = true
	}
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !known[k.Value] {
			out = append(out, fmt.Sprintf("line %d: field %s not found in type %s", k.Line, k.Value, t))
		}
	}
	return out
}

// joinTypeErrors is the decoder's errors of one value, in order: its own
// (msgs) and those of decoding it (err).
func joinTypeErrors(msgs []string, err error) error {
	if te, ok := err.(*yaml.TypeError); ok {
		msgs = append(msgs, te.Errors...)
	} else if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return nil
	}
	return &yaml.TypeError{Errors: msgs}
}

func typeErrorf(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, fmt.Sprintf(format, args...))}}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return tagName(n.ShortTag(), n.Value)
}

// tagName names a scalar by its tag for an error message.
func tagName(tag, value string) string {
	switch tag {
	case "!!null":
		return "nothing"
	case "!!int", "!!float":
		return "a number " + value
	case "!!bool":
		return "a boolean " + value
	case "!!map":
		return "a mapping"
	case "!!seq":
		return "a list"
	}
	return fmt.Sprintf("%q", value)
}
