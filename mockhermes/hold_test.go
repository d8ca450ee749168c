package mockhermes

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
)

// heldCall waits until the recorded resolve_gateway_approval of id is held.
func heldCall(t *testing.T, c *driver.Client, id string) driver.Call {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		list, err := c.Calls(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range list.Calls {
			if call.Name == "resolve_gateway_approval" && call.Args["request_id"] == id {
				return call
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no resolve_gateway_approval of %s recorded", id)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestHoldKeepsTheAnswerUntilReleased(t *testing.T) {
	m, f, c, _, _ := newDriver(t, Options{})
	ctx := context.Background()
	ar, err := c.Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /tmp/x", TimeoutMS: 60000})
	if err != nil {
		t.Fatal(err)
	}
	// Another approval's call is not held: the hold matches its args.
	other, err := c.Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /tmp/y", TimeoutMS: 60000})
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.Hold(ctx, driver.HoldRequest{Call: "resolve_gateway_approval", Args: map[string]any{"request_id": ar.ApprovalID}, TimeoutMS: 60000})
	if err != nil || h.HoldID == "" {
		t.Fatalf("hold = %+v, %v", h, err)
	}
	if n, err := m.ResolveGatewayApproval(ctx, other.SessionKey, "once", false, "", other.ApprovalID); n != 1 || err != nil {
		t.Fatalf("unheld call = %d, %v", n, err)
	}

	answered := make(chan int, 1)
	go func() {
		n, _ := m.ResolveGatewayApproval(ctx, ar.SessionKey, "deny", false, "", ar.ApprovalID)
		answered <- n
	}()
	call := heldCall(t, c, ar.ApprovalID)
	if !call.Held || call.Result != nil {
		t.Fatalf("call while held = %+v", call)
	}
	// Held means not acted on: a second call for the approval finds it
	// still pending and resolves it.
	if n, _ := m.ResolveGatewayApproval(ctx, ar.SessionKey, "once", false, "", ar.ApprovalID); n != 1 {
		t.Fatalf("a second call while the first is held resolved %d approvals, want 1", n)
	}
	f.waitHook(t, "post_approval_response", 2)
	select {
	case n := <-answered:
		t.Fatalf("held call answered %d before its release", n)
	default:
	}
	if err := c.Release(ctx, driver.ReleaseRequest(h)); err != nil {
		t.Fatal(err)
	}
	if n := <-answered; n != 0 {
		t.Fatalf("released call resolved %d, want 0 (the approval was resolved meanwhile)", n)
	}
	if call := heldCall(t, c, ar.ApprovalID); call.Held || call.Result != 0.0 {
		t.Fatalf("call after release = %+v", call)
	}
	// Releasing again is no error; the hold is spent, so the next call is
	// answered at once.
	if err := c.Release(ctx, driver.ReleaseRequest(h)); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if n, _ := m.ResolveGatewayApproval(ctx, ar.SessionKey, "once", false, "", ar.ApprovalID); n != 0 {
		t.Fatalf("call after the hold = %d", n)
	}
}

func TestHoldEndsAtItsBound(t *testing.T) {
	m, _, c, _, _ := newDriver(t, Options{})
	ctx := context.Background()
	ar, err := c.Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /tmp/x", TimeoutMS: 60000})
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.Hold(ctx, driver.HoldRequest{Call: "resolve_gateway_approval", TimeoutMS: 50})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := m.ResolveGatewayApproval(ctx, ar.SessionKey, "once", false, "", ar.ApprovalID); n != 1 {
		t.Fatalf("call held to its bound resolved %d, want 1", n)
	}
	if err := c.Release(ctx, driver.ReleaseRequest(h)); err != nil {
		t.Fatalf("release after the bound: %v", err)
	}
}

func TestHoldErrors(t *testing.T) {
	_, _, c, _, _ := newDriver(t, Options{})
	ctx := context.Background()
	for _, req := range []driver.HoldRequest{
		{Call: "handle_message"},
		{Call: "resolve_gateway_approval", TimeoutMS: (MaxHoldTimeout + time.Second).Milliseconds()},
	} {
		var e *driver.APIError
		if _, err := c.Hold(ctx, req); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
			t.Errorf("hold %+v: %v, want a 400", req, err)
		}
	}
	var e *driver.APIError
	if err := c.Release(ctx, driver.ReleaseRequest{HoldID: "hold_nope"}); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Errorf("release of an unknown hold: %v, want a 400", err)
	}
}
