package mockhermes

import (
	"context"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/model"
)

// TestModelScenariosInTheMock: a message carrying a marker of the scripted
// model plays that model's scenario, with the hooks a real Hermes fires
// when it talks to the model: the marker may stand anywhere in the text.
func TestModelScenariosInTheMock(t *testing.T) {
	ctx := context.Background()
	play := func(t *testing.T, name string) (*Mock, *fakeAdapter, string) {
		m, f := newTestMock(t, Options{StreamReasoningDeltas: true})
		chat := "c_" + name
		if err := m.HandleMessage(ctx, msg(chat, "[Replying to Ann: \"x\"] please "+model.Marker(name)+" now")); err != nil {
			t.Fatal(err)
		}
		return m, f, chat
	}
	ended := func(evs []event) bool { return count(evs, "on_session_end") == 1 }
	completed := func(t *testing.T, evs []event, calls int) {
		t.Helper()
		end := hooksNamed(evs, "on_session_end")[0]
		if end["completed"] != true || count(evs, "on_stream_start") != calls {
			t.Errorf("on_session_end %v after %d model calls, want completed after %d: %s", end, count(evs, "on_stream_start"), calls, compact(evs))
		}
	}

	t.Run("reply", func(t *testing.T) {
		_, f, _ := play(t, model.ScenarioReply)
		evs := f.waitFor(t, "the turn", ended)
		kinds := map[any]int{}
		for _, kw := range hooksNamed(evs, "on_stream_delta") {
			kinds[kw["kind"]]++
		}
		if kinds["reasoning"] == 0 || kinds["text"] == 0 {
			t.Errorf("deltas by kind %v, want reasoning and text", kinds)
		}
		completed(t, evs, 1)
	})
	t.Run("tools", func(t *testing.T) {
		_, f, _ := play(t, model.ScenarioTools)
		evs := f.waitFor(t, "the turn", ended)
		var names []any
		for _, kw := range hooksNamed(evs, "pre_tool_call") {
			names = append(names, kw["tool_name"])
		}
		if len(names) != 3 || names[0] != "read_file" || names[1] != "read_file" || names[2] != "terminal" {
			t.Errorf("pre_tool_call for %v, want read_file twice, then terminal", names)
		}
		completed(t, evs, 3)
	})
	t.Run("interim", func(t *testing.T) {
		_, f, _ := play(t, model.ScenarioInterim)
		evs := f.waitFor(t, "the turn", ended)
		if im := hooksNamed(evs, "on_interim_message"); len(im) != 1 || im[0]["text"] != "Checking the working directory first." {
			t.Errorf("on_interim_message %v", im)
		}
		completed(t, evs, 2)
	})
	t.Run("approval", func(t *testing.T) {
		m, f, chat := play(t, model.ScenarioApproval)
		evs := f.waitFor(t, "the prompt", func(evs []event) bool { return index(evs, func(e event) bool { return e.Kind == "prompt" }) >= 0 })
		p := evs[index(evs, func(e event) bool { return e.Kind == "prompt" })].Prompt
		if p.Command != model.ApprovalCommand {
			t.Errorf("the prompt's command %q, want %q", p.Command, model.ApprovalCommand)
		}
		if n, err := m.ResolveGatewayApproval(ctx, m.sessionKey(chat), lmp.ChoiceDeny, false, "", ""); n != 1 || err != nil {
			t.Fatalf("resolve: %d, %v", n, err)
		}
		completed(t, f.waitFor(t, "the turn", ended), 2)
	})
	t.Run("fail", func(t *testing.T) {
		_, f, _ := play(t, model.ScenarioFail)
		evs := f.waitFor(t, "the turn", ended)
		ends := hooksNamed(evs, "on_stream_end")
		if end := hooksNamed(evs, "on_session_end")[0]; end["completed"] != false || end["interrupted"] != false || end["failed"] != true ||
			len(ends) != 1 || ends[0]["finished"] != false || ends[0]["error"] == nil {
			t.Errorf("on_session_end %v after on_stream_end %v, want one failed call and a failed turn", end, ends)
		}
	})
	t.Run("retry", func(t *testing.T) {
		_, f, _ := play(t, model.ScenarioRetry)
		evs := f.waitFor(t, "the turn", ended)
		ends := hooksNamed(evs, "on_stream_end")
		if len(ends) != 2 || ends[0]["finished"] != false || ends[0]["error"] == nil || ends[1]["finished"] != true {
			t.Errorf("on_stream_end %v, want a failed call, then a finished one", ends)
		}
		completed(t, evs, 2)
	})
	t.Run("long", func(t *testing.T) {
		m, f, chat := play(t, model.ScenarioLong)
		f.waitHook(t, "on_stream_delta", 5) // the text, then one more chunk a second
		if err := m.Stop(chat); err != nil {
			t.Fatal(err)
		}
		if end := hooksNamed(f.waitFor(t, "the turn", ended), "on_session_end")[0]; end["interrupted"] != true {
			t.Errorf("on_session_end %v, want interrupted", end)
		}
	})
	t.Run("unknown markers play reply", func(t *testing.T) {
		if modelScenario("lmp-model:nope") != nil || modelScenario("tools") != nil {
			t.Errorf("a scenario for a name that is no model marker")
		}
	})
}
