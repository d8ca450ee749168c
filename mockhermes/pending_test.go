package mockhermes

import (
	"testing"
	"time"
)

// TestResolveLocally: a pending approval is listed, answered at the
// gateway without the adapter (nothing recorded as its call), and its
// post_approval_response carries the choice.
func TestResolveLocally(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ap, out := startApproval(t, m, "chat1", "rm -rf /tmp/x", time.Minute)
	list := m.PendingApprovals()
	if len(list) != 1 || list[0].ID != ap.ID() || list[0].ChatID != "chat1" || list[0].Command != "rm -rf /tmp/x" || len(list[0].Choices) != 4 {
		t.Fatalf("pending %+v", list)
	}
	if m.ResolveLocally("apr_unknown", "once") {
		t.Fatal("resolved an approval that is not pending")
	}
	if !m.ResolveLocally(ap.ID(), "session") {
		t.Fatal("pending approval not resolved")
	}
	if c := recv(t, out); c != "session" {
		t.Fatalf("outcome %q", c)
	}
	post := f.waitHook(t, "post_approval_response", 1)
	if kw := post[len(post)-1].Kwargs; kw["choice"] != "session" {
		t.Fatalf("post_approval_response %v", kw)
	}
	if len(m.PendingApprovals()) != 0 || m.ResolveLocally(ap.ID(), "once") {
		t.Fatal("a resolved approval is still pending")
	}
	for _, c := range m.Calls() {
		if c.Name == "resolve_gateway_approval" {
			t.Fatalf("a local answer was recorded as the adapter's call: %+v", c)
		}
	}
}
