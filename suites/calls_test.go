package suites

import (
	"testing"

	"github.com/loomi-lmp/lmpkit/driver"
)

// A wait for Hermes calls that fails names the calls that came instead in
// one line: scalar arguments in name order, a handle_message's text, the
// newest calls only.
func TestDescribeCalls(t *testing.T) {
	if got, want := describeCalls(nil), "no call of that name was recorded"; got != want {
		t.Errorf("describeCalls(nil) = %q, want %q", got, want)
	}
	resolve := driver.Call{Name: "resolve_gateway_approval", Args: map[string]any{
		"session_key": "agent:main:loomi:dm:c1", "choice": "once", "resolve_all": false, "reason": nil,
		"nested": map[string]any{"left": "out"},
	}}
	msg := driver.Call{Name: "handle_message", Args: map[string]any{"event": map[string]any{"text": "hi"}}}
	want := `recorded: resolve_gateway_approval(choice:"once", reason:null, resolve_all:false, session_key:"agent:main:loomi:dm:c1"), handle_message(text:"hi")`
	if got := describeCalls([]driver.Call{resolve, msg}); got != want {
		t.Errorf("describeCalls =\n  %s\nwant\n  %s", got, want)
	}
	many := make([]driver.Call, maxCallsShown+2)
	for i := range many {
		many[i] = msg
	}
	if got, want := describeCalls(many)[:len("recorded: 2 older, ")], "recorded: 2 older, "; got != want {
		t.Errorf("describeCalls of %d calls starts %q, want %q", len(many), got, want)
	}
}
