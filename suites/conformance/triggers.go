package conformance

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loomi-lmp/lmpkit/schema"
)

// Triggers maps each Hermes-side event the suites need to the session.send
// text (F-5) that makes the server under test produce it: the event source
// of a server without the mock Hermes driver API (lmp-check --triggers).
// An empty text means the server has no such trigger; the specs that need
// it are skipped with the reason. The file format is
// schema/triggers.schema.json.
type Triggers struct {
	// Name is where the triggers came from: "mock" or the file's path.
	Name string `json:"-" yaml:"-"`
	// Reply is a plain reply: one run that starts and completes.
	Reply string `json:"reply,omitempty" yaml:"reply,omitempty"`
	// Notifications produces N notifications in the message's task; {n}
	// stands for N.
	Notifications string `json:"notifications,omitempty" yaml:"notifications,omitempty"`
	// Approval is a run that asks for an exec approval and waits for it.
	Approval string `json:"approval,omitempty" yaml:"approval,omitempty"`
	// FailingRun is a run that ends with a non-empty error (F-4).
	FailingRun string `json:"failing_run,omitempty" yaml:"failing_run,omitempty"`
	// LongRun is a run that streams until it is cancelled (F-6).
	LongRun string `json:"long_run,omitempty" yaml:"long_run,omitempty"`
	// ToolRun is a run of one turn of several model calls, with tool calls
	// between them (H-1: a run is one turn).
	ToolRun string `json:"tool_run,omitempty" yaml:"tool_run,omitempty"`
	// Unavailable says, by event, why there is no trigger for it: the
	// reason the specs that need it are skipped with.
	Unavailable TriggerReasons `json:"unavailable,omitzero" yaml:"unavailable,omitempty"`
}

// TriggerReasons holds, for each event without a trigger, why it has none.
type TriggerReasons struct {
	Reply         string `json:"reply,omitempty" yaml:"reply,omitempty"`
	Notifications string `json:"notifications,omitempty" yaml:"notifications,omitempty"`
	Approval      string `json:"approval,omitempty" yaml:"approval,omitempty"`
	FailingRun    string `json:"failing_run,omitempty" yaml:"failing_run,omitempty"`
	LongRun       string `json:"long_run,omitempty" yaml:"long_run,omitempty"`
	ToolRun       string `json:"tool_run,omitempty" yaml:"tool_run,omitempty"`
}

// TriggersSchema is the schema a triggers file is validated against.
const TriggersSchema = "triggers.schema"

//go:embed mock-triggers.yaml
var mockTriggersYAML []byte

//go:embed hermes-triggers.yaml
var hermesTriggersYAML []byte

// BuiltinTriggers names the built-in sets, in the order lmp-check lists
// them.
var BuiltinTriggers = []string{"mock", "hermes"}

// BuiltinTriggersYAML returns the YAML file of a built-in set (lmp-check
// triggers NAME), or false when there is no such set.
func BuiltinTriggersYAML(name string) ([]byte, bool) {
	switch name {
	case "mock":
		return mockTriggersYAML, true
	case "hermes":
		return hermesTriggersYAML, true
	}
	return nil, false
}

// MockTriggers is the built-in set (--triggers mock): the /mock commands of
// lmp-server's mock Hermes.
func MockTriggers() *Triggers { return mustBuiltin("mock") }

// HermesTriggers is the built-in set for a real Hermes whose model is
// lmp-check's scripted model (--triggers hermes): the model's markers.
func HermesTriggers() *Triggers { return mustBuiltin("hermes") }

func mustBuiltin(name string) *Triggers {
	raw, _ := BuiltinTriggersYAML(name)
	t, err := ParseTriggers(name, raw)
	if err != nil {
		panic("conformance: the built-in triggers do not validate: " + err.Error()) // a build defect, tested
	}
	return t
}

// LoadTriggers reads --triggers: "mock" and "hermes" are the built-in
// sets, anything else a YAML or JSON file.
func LoadTriggers(arg string) (*Triggers, error) {
	if _, ok := BuiltinTriggersYAML(arg); ok {
		return mustBuiltin(arg), nil
	}
	raw, err := os.ReadFile(arg)
	if err != nil {
		return nil, err
	}
	return ParseTriggers(arg, raw)
}

// ParseTriggers parses a triggers file (YAML, of which JSON is a subset)
// and validates it against schema/triggers.schema.json; name is used in
// errors.
func ParseTriggers(name string, raw []byte) (*Triggers, error) {
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if doc == nil {
		return nil, fmt.Errorf("%s is empty: it names no event (reply, notifications, approval, failing_run, long_run, tool_run)", name)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if m, ok := doc.(map[string]any); ok && !namesAnEvent(m) {
		return nil, fmt.Errorf("%s names no event: give at least one of reply, notifications, approval, failing_run, long_run, tool_run (schema/triggers.schema.json)", name)
	}
	if errs := schema.ValidateDocument(TriggersSchema, js); len(errs) > 0 {
		lines := make([]string, len(errs))
		for i, e := range errs {
			lines[i] = e.String()
		}
		return nil, fmt.Errorf("%s does not match schema/triggers.schema.json:\n  %s", name, strings.Join(lines, "\n  "))
	}
	var t Triggers
	if err := json.Unmarshal(js, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t.Name = name
	return &t, nil
}

// unavailable is the reason the triggers give for having no trigger of
// kind, or "".
func (t *Triggers) unavailable(kind Trigger) string {
	_, why := t.of(kind)
	return why
}

// NotificationsText is the notifications trigger for n notifications.
func (t *Triggers) NotificationsText(n int) string {
	return strings.ReplaceAll(t.Notifications, "{n}", strconv.Itoa(n))
}

// namesAnEvent reports whether a triggers document has a key of the
// schema's (the schema's anyOf says the same, less readably).
func namesAnEvent(m map[string]any) bool {
	for _, k := range allTriggers {
		if _, ok := m[k.String()]; ok {
			return true
		}
	}
	return false
}
