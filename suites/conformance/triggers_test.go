package conformance

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/model"
)

func TestMockTriggersAreTheSchemaExample(t *testing.T) {
	raw, err := os.ReadFile("../../schema/examples/valid/triggers/mock.json")
	if err != nil {
		t.Fatal(err)
	}
	var want Triggers
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got := *MockTriggers()
	got.Name = ""
	if got != want {
		t.Errorf("built-in triggers %+v, schema example %+v", got, want)
	}
	if n := MockTriggers().NotificationsText(552); n != "/mock burst 552" {
		t.Errorf("notifications for 552: %q", n)
	}
}

func TestParseTriggersNamesTheProblem(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"no-n.yaml", "notifications: /mock burst 10\n", "/notifications"},
		{"type.yaml", "approval: [1]\n", "/approval"},
		{"empty.yaml", "reply: ''\n", "/reply"},
		{"list.yaml", "- reply\n", "triggers.schema.json"},
		{"syntax.yaml", "reply: [\n", "syntax.yaml"},
		{"other.yaml", "expectations: []\n", "names no event"},
		{"empty.yaml", "", "names no event"},
	} {
		_, err := ParseTriggers(tc.name, []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: %v, want an error naming %s and %q", tc.name, err, tc.name, tc.want)
		}
	}
	tr, err := ParseTriggers("partial.yaml", []byte("notifications: '!notify {n}'\nx-note: unknown keys are ignored\n"))
	if err != nil || tr.NotificationsText(3) != "!notify 3" || tr.Approval != "" {
		t.Errorf("partial: %+v, %v", tr, err)
	}
}

func TestEventSourcePrefersTheDriver(t *testing.T) {
	tr := MockTriggers()
	for _, tc := range []struct {
		t    Target
		want Source
	}{
		{Target{}, SourceNone},
		{Target{DriverURL: "http://x"}, SourceDriver},
		{Target{Triggers: tr}, SourceTriggers},
		{Target{DriverURL: "http://x", Triggers: tr}, SourceDriver},
		{Target{DriverURL: "http://x", Triggers: tr, PreferTriggers: true}, SourceTriggers},
	} {
		if got := tc.t.EventSource(); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.t, got, tc.want)
		}
	}
}

// TestHermesTriggersAreMarkers: each text of the hermes set plays, in the
// scripted model, the scenario that produces its event; the set says why
// it has no notifications trigger.
func TestHermesTriggersAreMarkers(t *testing.T) {
	tr := HermesTriggers()
	for text, want := range map[string]string{
		tr.Reply: model.ScenarioReply, tr.Approval: model.ScenarioApproval, tr.FailingRun: model.ScenarioFail,
		tr.LongRun: model.ScenarioLong, tr.ToolRun: model.ScenarioTools,
	} {
		req := model.Request{Messages: []model.Message{{Role: "user", Content: model.Content("[a prefix Hermes adds] " + text)}},
			Tools: []model.Tool{{Type: "function"}}}
		rt, why, ok := model.RouteOf(&req)
		if !ok || rt.Scenario.Name != want || rt.Reply != 0 {
			t.Errorf("%q plays %q (%s), want %q", text, rt.Scenario.Name, why, want)
		}
	}
	if tr.Notifications != "" || tr.unavailable(TriggerNotifications) == "" {
		t.Errorf("hermes set: notifications %q, reason %q; want none, and why", tr.Notifications, tr.unavailable(TriggerNotifications))
	}
	if _, err := LoadTriggers("hermes"); err != nil {
		t.Error(err)
	}
}

// TestTriggerKindsAreTheFileKeys: each Trigger constant is one key of a
// triggers file and of its unavailable reasons, and every key is a kind.
func TestTriggerKindsAreTheFileKeys(t *testing.T) {
	tr := Triggers{Reply: "a", Notifications: "b", Approval: "c", FailingRun: "d", LongRun: "e", ToolRun: "f",
		Unavailable: TriggerReasons{Reply: "a", Notifications: "b", Approval: "c", FailingRun: "d", LongRun: "e", ToolRun: "f"}}
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(raw, &keys); err != nil {
		t.Fatal(err)
	}
	reasons, _ := keys["unavailable"].(map[string]any)
	delete(keys, "unavailable")
	if len(keys) != len(allTriggers) || len(reasons) != len(allTriggers) {
		t.Fatalf("a triggers file has %d keys and %d reasons, the suites %d kinds", len(keys), len(reasons), len(allTriggers))
	}
	for _, k := range allTriggers {
		text, why := tr.of(k)
		if keys[k.String()] != text || reasons[k.String()] != why || text == "" {
			t.Errorf("kind %s: the file's %q is %v, of() says %q (reason %q)", k, k.String(), keys[k.String()], text, why)
		}
	}
}
