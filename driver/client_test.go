package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
)

// stub answers like a driver API and remembers the last request.
type stub struct {
	method, path, body string
	status             int
	answer             string
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.method, s.path, s.body = r.Method, r.URL.Path, string(b)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(s.status)
	io.WriteString(w, s.answer)
}

func newStub(t *testing.T) (*stub, string) {
	s := &stub{status: 200, answer: `{"ok":true}`}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func TestClientRoutes(t *testing.T) {
	s, url := newStub(t)
	ctx := context.Background()
	for _, base := range []string{url, url + "/", url + driver.Prefix} {
		c := driver.New(base, nil)
		s.answer = `{"ping_interval_ms":25000,"request_id_window":256,"hermes":{"surface":"loomi","crosstalk":true}}`
		p, err := c.Profile(ctx)
		if err != nil || p.PingIntervalMS != 25000 || p.RequestIDWindow != 256 || p.Hermes == nil || p.Hermes.Surface != "loomi" || !p.Hermes.Crosstalk {
			t.Fatalf("%s: profile = %+v, %v", base, p, err)
		}
		if s.method != "GET" || s.path != driver.Prefix+driver.RouteProfile {
			t.Fatalf("%s: requested %s %s", base, s.method, s.path)
		}
	}
	c := driver.New(url, nil)
	cases := []struct {
		call         func() error
		method, path string
		answer       string
		sent         string // a field the body must carry
	}{
		{func() error { return c.Hook(ctx, driver.HookRequest{Name: "on_stream_start"}) }, "POST", driver.RouteHook, `{"ok":true}`, `"name":"on_stream_start"`},
		{func() error {
			r, err := c.Send(ctx, driver.SendRequest{ChatID: "c", Content: "x"})
			if err == nil && r.MessageID != "m1" {
				return errors.New("send response not decoded")
			}
			return err
		}, "POST", driver.RouteSend, `{"success":true,"message_id":"m1"}`, `"content":"x"`},
		{func() error {
			r, err := c.Approval(ctx, driver.ApprovalRequest{Command: "ls"})
			if err == nil && r.ApprovalID != "a1" {
				return errors.New("approval response not decoded")
			}
			return err
		}, "POST", driver.RouteApproval, `{"approval_id":"a1","task_id":"t","session_key":"k"}`, `"command":"ls"`},
		{func() error {
			r, err := c.Play(ctx, driver.PlayRequest{Scenario: "reply", Wait: true})
			if err == nil && r.RunID != "run_1" {
				return errors.New("play response not decoded")
			}
			return err
		}, "POST", driver.RoutePlay, `{"task_id":"t","run_id":"run_1"}`, `"wait":true`},
		{func() error {
			r, err := c.Play(ctx, driver.PlayRequest{Scenario: "reply", Faults: &driver.Faults{Interleave: true}})
			if err == nil && (r.SessionID != "20261201_101500_ab12cd34" || r.TurnID != "turn_1") {
				return errors.New("play response's session and turn not decoded")
			}
			return err
		}, "POST", driver.RoutePlay, `{"task_id":"t","run_id":"run_turn_1","turn_id":"turn_1","session_id":"20261201_101500_ab12cd34"}`, `"interleave":true`},
		{func() error {
			r, err := c.Session(ctx, driver.SessionRequest{TaskID: "chat_1", SessionID: "20261201_101500_ab12cd34", Source: "telegram"})
			if err == nil && r.SessionID != "20261201_101500_ab12cd34" {
				return errors.New("session link not decoded")
			}
			return err
		}, "POST", driver.RouteSession, `{"task_id":"chat_1","session_id":"20261201_101500_ab12cd34"}`, `"session_id":"20261201_101500_ab12cd34"`},
		{func() error {
			r, err := c.Scenarios(ctx)
			if err == nil && len(r.Scenarios) != 1 {
				return errors.New("scenarios not decoded")
			}
			return err
		}, "GET", driver.RouteScenarios, `{"scenarios":[{"name":"reply","description":"d","usage":"reply"}]}`, ``},
		{func() error {
			r, err := c.Calls(ctx)
			if err == nil && (len(r.Calls) != 1 || r.Calls[0].Name != "handle_message") {
				return errors.New("calls not decoded")
			}
			return err
		}, "GET", driver.RouteCalls, `{"calls":[{"seq":1,"name":"handle_message","args":{},"at":1.5}]}`, ``},
		{func() error { return c.ClearCalls(ctx) }, "DELETE", driver.RouteCalls, `{"ok":true}`, ``},
		{func() error {
			r, err := c.Hooks(ctx)
			if err == nil && (len(r.Hooks) != 1 || r.Hooks[0].Name != "post_approval_response" || r.Hooks[0].Kwargs["choice"] != "once" || r.Hooks[0].At != 1.5) {
				return errors.New("hooks not decoded")
			}
			return err
		}, "GET", driver.RouteHooks, `{"hooks":[{"seq":1,"name":"post_approval_response","kwargs":{"choice":"once"},"at":1.5}]}`, ``},
		{func() error { return c.ClearHooks(ctx) }, "DELETE", driver.RouteHooks, `{"ok":true}`, ``},
		{func() error {
			r, err := c.Session(ctx, driver.SessionRequest{Title: "T"})
			if err == nil && r.TaskID != "t9" {
				return errors.New("session not decoded")
			}
			return err
		}, "POST", driver.RouteSession, `{"task_id":"t9"}`, `"title":"T"`},
	}
	for _, tc := range cases {
		s.answer = tc.answer
		if err := tc.call(); err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		if s.method != tc.method || s.path != driver.Prefix+tc.path || !strings.Contains(s.body, tc.sent) {
			t.Fatalf("sent %s %s %s, want %s %s with %s", s.method, s.path, s.body, tc.method, tc.path, tc.sent)
		}
		if tc.method != "POST" && s.body != "" {
			t.Fatalf("%s sent a body", tc.method)
		}
		if tc.method == "POST" && !json.Valid([]byte(s.body)) {
			t.Fatalf("body %q is not JSON", s.body)
		}
	}
}

func TestClientErrors(t *testing.T) {
	s, url := newStub(t)
	c := driver.New(url, nil)
	ctx := context.Background()

	s.status, s.answer = 400, `{"error":"/play: unknown scenario \"x\""}`
	_, err := c.Play(ctx, driver.PlayRequest{Scenario: "x"})
	var ae *driver.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || ae.Route != driver.RoutePlay || ae.Method != "POST" ||
		ae.Message != `/play: unknown scenario "x"` {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "POST /play") || !strings.Contains(err.Error(), "unknown scenario") {
		t.Fatalf("message %q does not name route and cause", err)
	}

	s.status, s.answer = 502, `bad gateway`
	if _, err := c.Profile(ctx); !errors.As(err, &ae) || ae.Message != "bad gateway" {
		t.Fatalf("non-JSON error: %v", err)
	}

	s.status, s.answer = 200, `{"task_id":`
	if _, err := c.Session(ctx, driver.SessionRequest{}); err == nil || !strings.Contains(err.Error(), "/session") {
		t.Fatalf("bad JSON answer: %v", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Profile(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}

	dead := driver.New("http://127.0.0.1:1", &http.Client{Timeout: 2 * time.Second})
	if _, err := dead.Calls(ctx); err == nil || !strings.Contains(err.Error(), "GET /calls") {
		t.Fatalf("unreachable: %v", err)
	}
}
