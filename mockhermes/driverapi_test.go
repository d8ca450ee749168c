package mockhermes

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/schema"
)

// schemaCheckingTransport validates every driver response body against the
// schema of its route and status.
type schemaCheckingTransport struct {
	t    *testing.T
	mu   sync.Mutex
	seen map[string]bool
}

var responseSchemas = map[string]string{
	"GET " + driver.RouteProfile:   "driver/profile",
	"POST " + driver.RouteHook:     "driver/ok",
	"POST " + driver.RouteSend:     "driver/send-response",
	"POST " + driver.RouteApproval: "driver/approval-response",
	"POST " + driver.RoutePlay:     "driver/play-response",
	"GET " + driver.RouteScenarios: "driver/scenario-list",
	"GET " + driver.RouteCalls:     "driver/call-list",
	"DELETE " + driver.RouteCalls:  "driver/ok",
	"GET " + driver.RouteHooks:     "driver/hook-list",
	"DELETE " + driver.RouteHooks:  "driver/ok",
	"POST " + driver.RouteSession:  "driver/session-response",
	"POST " + driver.RouteHold:     "driver/hold-response",
	"POST " + driver.RouteRelease:  "driver/ok",
}

func (s *schemaCheckingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	name := "driver/error"
	key := req.Method + " " + strings.TrimPrefix(req.URL.Path, driver.Prefix)
	if resp.StatusCode/100 == 2 {
		name = responseSchemas[key]
	}
	if name == "" {
		s.t.Errorf("no schema for %s", key)
	} else if errs := schema.ValidateDocument(name, raw); len(errs) > 0 {
		s.t.Errorf("%s answer (%d) breaks %s: %v\n%s", key, resp.StatusCode, name, errs, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("%s: Content-Type %q", key, ct)
	}
	s.mu.Lock()
	s.seen[name] = true
	s.mu.Unlock()
	return resp, nil
}

func newDriver(t *testing.T, opts Options) (*Mock, *fakeAdapter, *driver.Client, *schemaCheckingTransport, string) {
	t.Helper()
	m, f := newTestMock(t, opts)
	prof := driver.Profile{PingIntervalMS: 25000, PongTimeoutMS: 10000, MissedPongs: 3, AuthTimeoutMS: 10000,
		PairTTLMS: 300000, ApprovalTimeoutMS: 300000, ReplayWindow: 512, RequestIDWindow: 256}
	srv := httptest.NewServer(m.DriverHandler(prof))
	t.Cleanup(srv.Close)
	tr := &schemaCheckingTransport{t: t, seen: map[string]bool{}}
	return m, f, driver.New(srv.URL, &http.Client{Transport: tr, Timeout: 10 * time.Second}), tr, srv.URL
}

func TestDriverAPI(t *testing.T) {
	m, f, c, tr, _ := newDriver(t, Options{})
	ctx := context.Background()

	p, err := c.Profile(ctx)
	if err != nil || p.PingIntervalMS != 25000 || p.RequestIDWindow != 256 || p.ReplayWindow != 512 {
		t.Fatalf("profile = %+v, %v", p, err)
	}

	if err := c.Hook(ctx, driver.HookRequest{Name: "on_stream_start", Kwargs: map[string]any{"turn_id": "t1", "iteration": 1}}); err != nil {
		t.Fatal(err)
	}
	evs := f.snapshot()
	if len(evs) != 1 || evs[0].Name != "on_stream_start" || evs[0].Kwargs["turn_id"] != "t1" ||
		evs[0].Kwargs["iteration"] != 1.0 || evs[0].Kwargs["telemetry_schema_version"] != TelemetrySchemaVersion {
		t.Fatalf("hook = %+v", evs)
	}

	sr, err := c.Send(ctx, driver.SendRequest{ChatID: "c1", Content: "cron done", Metadata: map[string]any{"category": "result"}})
	if err != nil || !sr.Success || sr.MessageID == "" {
		t.Fatalf("send = %+v, %v", sr, err)
	}
	if e := f.snapshot()[1]; e.Kind != "send" || e.Text != "cron done" || e.ChatID != "c1" || e.Meta["category"] != "result" {
		t.Fatalf("send reached adapter as %+v", e)
	}

	ar, err := c.Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /", AllowPermanent: new(bool), TimeoutMS: 60000})
	if err != nil || ar.ApprovalID == "" || ar.TaskID == "" || ar.SessionKey != SessionKey(ar.TaskID) {
		t.Fatalf("approval = %+v, %v", ar, err)
	}
	pr := f.snapshot()[3].Prompt
	if pr.RequestID != ar.ApprovalID || pr.AllowPermanent || !pr.AllowSession {
		t.Fatalf("prompt = %+v", pr)
	}
	if n, _ := m.ResolveGatewayApproval(ctx, ar.SessionKey, "deny", false, "", ar.ApprovalID); n != 1 {
		t.Fatal("driver approval not pending")
	}
	f.waitHook(t, "post_approval_response", 1)

	play, err := c.Play(ctx, driver.PlayRequest{Scenario: "burst", Args: []string{"5"}, Wait: true})
	if err != nil || play.TaskID == "" || play.RunID != "" || play.Error != "" {
		t.Fatalf("play = %+v, %v", play, err)
	}
	if n := count(f.snapshot(), "send"); n != 6 {
		t.Fatalf("sends after burst 5 = %d", n)
	}
	play, err = c.Play(ctx, driver.PlayRequest{Scenario: "reply", TaskID: "chosen", Faults: &driver.Faults{Duplicate: true}})
	if err != nil || play.TaskID != "chosen" || !strings.HasPrefix(play.RunID, "run_turn_") {
		t.Fatalf("play = %+v, %v", play, err)
	}
	evs = f.waitHook(t, "on_stream_end", 2) // duplicated
	for _, e := range evs {
		if e.Name == "on_stream_end" && e.Kwargs["turn_id"] != strings.TrimPrefix(play.RunID, "run_") {
			t.Fatal("run_id does not name the turn")
		}
	}
	if play.TurnID != strings.TrimPrefix(play.RunID, "run_") || play.SessionID != m.SessionOf("chosen") || play.SessionID == "chosen" {
		t.Fatalf("play names turn %q and session %q", play.TurnID, play.SessionID)
	}

	list, err := c.Scenarios(ctx)
	if err != nil || len(list.Scenarios) != len(m.ScenarioNames()) || list.Scenarios[0].Usage == "" {
		t.Fatalf("scenarios = %+v, %v", list, err)
	}

	m.ListSessions(ctx, serverListAll())
	calls, err := c.Calls(ctx)
	if err != nil || len(calls.Calls) != 2 || calls.Calls[0].Name != "resolve_gateway_approval" || calls.Calls[1].Name != "list_sessions_rich" {
		t.Fatalf("calls = %+v, %v", calls, err)
	}
	if calls.Calls[0].Result != 1.0 || calls.Calls[0].Args["choice"] != "deny" || calls.Calls[0].At <= 0 {
		t.Fatalf("call = %+v", calls.Calls[0])
	}
	if err := c.ClearCalls(ctx); err != nil {
		t.Fatal(err)
	}
	if calls, _ := c.Calls(ctx); len(calls.Calls) != 0 {
		t.Fatal("calls not cleared")
	}

	sess, err := c.Session(ctx, driver.SessionRequest{Title: "Seeded", Ended: true})
	if err != nil || sess.TaskID == "" {
		t.Fatalf("session = %+v, %v", sess, err)
	}
	rows, _ := m.ListSessions(ctx, serverListAll())
	found := false
	for _, r := range rows {
		found = found || (r.ID == sess.TaskID && r.Title == "Seeded" && r.EndedAt != nil)
	}
	if !found {
		t.Fatal("seeded session not listed")
	}

	for _, name := range []string{"driver/profile", "driver/ok", "driver/send-response", "driver/approval-response",
		"driver/play-response", "driver/scenario-list", "driver/call-list", "driver/session-response"} {
		if !tr.seen[name] {
			t.Errorf("no response checked against %s", name)
		}
	}
}

func TestDriverAPIErrors(t *testing.T) {
	_, _, c, tr, base := newDriver(t, Options{})
	ctx := context.Background()
	var ae *driver.APIError

	_, err := c.Play(ctx, driver.PlayRequest{Scenario: "nosuch"})
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, `unknown scenario "nosuch"`) || ae.Route != driver.RoutePlay {
		t.Fatalf("unknown scenario: %v", err)
	}
	_, err = c.Play(ctx, driver.PlayRequest{Scenario: "burst", Args: []string{"100001"}})
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "at most 100000") {
		t.Fatalf("burst over limit: %v", err)
	}
	_, err = c.Approval(ctx, driver.ApprovalRequest{})
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "command") {
		t.Fatalf("approval without command: %v", err)
	}

	hc := &http.Client{Transport: tr}
	raw := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", driver.Prefix + driver.RoutePlay, `{"scenario":`, 400, "invalid body"},
		{"POST", driver.Prefix + driver.RoutePlay, `{"scenario":"reply","bogus":1}`, 400, "bogus"},
		{"POST", driver.Prefix + driver.RoutePlay, `{"scenario":5}`, 400, "/scenario"},
		{"POST", driver.Prefix + driver.RouteHook, `{"kwargs":{}}`, 400, "name"},
		{"POST", driver.Prefix + driver.RouteSend, `[]`, 400, "invalid body"},
		{"GET", driver.Prefix + driver.RoutePlay, ``, 405, "method not allowed"},
		{"POST", driver.Prefix + driver.RouteProfile, `{}`, 405, "method not allowed"},
		{"PUT", driver.Prefix + driver.RouteCalls, ``, 405, "GET, DELETE"},
		{"POST", driver.Prefix + driver.RouteHooks, `{}`, 405, "GET, DELETE"},
		{"GET", driver.Prefix + "/nope", ``, 404, "no driver route"},
		{"GET", "/elsewhere", ``, 404, "no driver route"},
	} {
		status, body := raw(c.method, c.path, c.body)
		if status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s %s %s: %d %s, want %d containing %q", c.method, c.path, c.body, status, body, c.status, c.want)
		}
	}
	if !tr.seen["driver/error"] {
		t.Fatal("no error body checked against its schema")
	}
}

func TestDriverWithoutAdapter(t *testing.T) {
	m := New(Options{})
	defer m.Close()
	srv := httptest.NewServer(m.DriverHandler(driver.Profile{}))
	defer srv.Close()
	_, err := driver.New(srv.URL+driver.Prefix, nil).Play(context.Background(), driver.PlayRequest{Scenario: "reply"})
	var ae *driver.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusServiceUnavailable {
		t.Fatalf("play without adapter: %v", err)
	}
}

// TestDriverHermesAdditions: POST hook checks names and kwarg types against
// Hermes' hooks, POST session links a session to a chat, GET profile says
// which Hermes behaviours are on.
func TestDriverHermesAdditions(t *testing.T) {
	_, f, c, _, _ := newDriver(t, Options{StreamReasoningDeltas: true, Crosstalk: true})
	ctx := context.Background()
	for _, tc := range []struct {
		req  driver.HookRequest
		want string
	}{
		{driver.HookRequest{Name: "on_strem_start"}, `unknown hook "on_strem_start"`},
		{driver.HookRequest{Name: "on_stream_end", Kwargs: map[string]any{"finished": "yes"}}, "hook on_stream_end: kwarg finished must be boolean, got the string"},
		{driver.HookRequest{Name: "post_tool_call", Kwargs: map[string]any{"duration_ms": 1.5}}, "kwarg duration_ms must be integer"},
		{driver.HookRequest{Name: "on_session_end", Kwargs: map[string]any{"completed": true, "interrupted": nil}}, "kwarg interrupted must be boolean, got null"},
	} {
		err := c.Hook(ctx, tc.req)
		var ae *driver.APIError
		if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, tc.want) {
			t.Errorf("hook %+v: %v, want a 400 saying %q", tc.req, err, tc.want)
		}
	}
	if len(f.snapshot()) != 0 {
		t.Fatal("a refused hook reached the adapter")
	}
	// Kwargs Hermes does not define pass, like a plugin's **kwargs; hooks
	// Hermes has but the mock never fires pass too; only stream hooks get
	// telemetry_schema_version.
	for _, name := range []string{"on_session_end", "subagent_stop"} {
		if err := c.Hook(ctx, driver.HookRequest{Name: name, Kwargs: map[string]any{"completed": true, "extra": 1}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if evs := f.snapshot(); len(evs) != 2 || evs[0].Kwargs["extra"] != 1.0 || evs[0].Kwargs["telemetry_schema_version"] != nil {
		t.Fatalf("hooks = %+v", evs)
	}

	link, err := c.Session(ctx, driver.SessionRequest{TaskID: "chat-9", SessionID: "20261201_090000_00c0ffee", Title: "Linked"})
	if err != nil || link.TaskID != "chat-9" || link.SessionID != "20261201_090000_00c0ffee" {
		t.Fatalf("link = %+v, %v", link, err)
	}
	play, err := c.Play(ctx, driver.PlayRequest{Scenario: "reply", TaskID: "chat-9", Wait: true})
	if err != nil || play.SessionID != link.SessionID {
		t.Fatalf("play in a linked chat = %+v, %v", play, err)
	}
	linked := false
	for _, e := range f.snapshot() {
		linked = linked || (e.Name == "on_stream_end" && e.Kwargs["session_id"] == link.SessionID)
	}
	if !linked {
		t.Fatal("the linked chat's turn does not run in the linked session")
	}
	p, err := c.Profile(ctx)
	if err != nil || p.Hermes == nil {
		t.Fatalf("profile = %+v, %v", p, err)
	}
	h := *p.Hermes
	if h.TelemetrySchemaVersion != "hermes.observer.v1" || h.Surface != "loomi" || !h.StreamReasoningDeltas || !h.Crosstalk ||
		h.BusyInputMode != BusyInterrupt || h.ApprovalPromptTimeoutMS != 15000 || h.MaxStreamPayloadBytes != 16384 || h.StreamQueueSize != 1024 {
		t.Fatalf("hermes profile = %+v", h)
	}
}

// TestDriverHooks: GET /hooks lists every hook the adapter received, with
// its kwargs as received, stream hooks delivered through Hermes' queues
// included, and each only once the adapter's callback has returned; DELETE
// clears the log and numbering goes on.
func TestDriverHooks(t *testing.T) {
	m, f, c, tr, _ := newDriver(t, Options{})
	ctx := context.Background()

	inCallback := make(chan []driver.Hook, 1)
	f.hookGate = func(name string, _ map[string]any) {
		if name == "post_approval_response" {
			inCallback <- m.Hooks()
		}
	}
	ar, err := c.Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /tmp/x", TimeoutMS: 60000})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := m.ResolveGatewayApproval(ctx, ar.SessionKey, "once", false, "", ar.ApprovalID); n != 1 {
		t.Fatal("approval not pending")
	}
	for _, h := range <-inCallback {
		if h.Name == "post_approval_response" {
			t.Fatal("post_approval_response listed while the adapter's callback still runs")
		}
	}
	f.waitHook(t, "post_approval_response", 1)

	play, err := c.Play(ctx, driver.PlayRequest{Scenario: "reply", Faults: &driver.Faults{Interleave: true}, Wait: true})
	if err != nil || play.Error != "" {
		t.Fatalf("play = %+v, %v", play, err)
	}
	// Stream hooks have no order across hooks: on_stream_end may come
	// before the last deltas, which must all be in before the log is
	// cleared below. They are once their text is the call's final_text.
	f.waitFor(t, "every stream hook of the turn", func(evs []event) bool {
		var text strings.Builder
		for _, kw := range hooksNamed(evs, "on_stream_delta") {
			text.WriteString(kw["delta"].(string))
		}
		ends := hooksNamed(evs, "on_stream_end")
		return count(evs, "on_stream_start") == 1 && len(ends) == 1 && ends[0]["final_text"] == text.String()
	})
	// Wait until the log has caught up with what the adapter received
	// (the log lags the adapter's own record by at most the callbacks
	// still running).
	var (
		list     driver.HookList
		received map[string][]map[string]any
		n        int
	)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if list, err = c.Hooks(ctx); err != nil {
			t.Fatal(err)
		}
		received, n = receivedByName(f.snapshot())
		if len(list.Hooks) == n || time.Now().After(deadline) {
			break
		}
	}
	if len(list.Hooks) != n {
		t.Fatalf("%d hooks listed, the adapter received %d", len(list.Hooks), n)
	}
	// Hermes keeps order within one hook, not across hooks.
	for name, want := range received {
		var got []map[string]any
		for _, h := range list.Hooks {
			if h.Name == name {
				got = append(got, h.Kwargs)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s listed with kwargs %v, received %v", name, got, want)
		}
	}
	for i, h := range list.Hooks {
		if h.Seq != int64(i+1) || h.At <= 0 {
			t.Fatalf("hook %d = %+v", i, h)
		}
	}
	if _, ok := received["on_stream_delta"]; !ok {
		t.Fatal("no stream hook went through the queues")
	}

	if err := c.ClearHooks(ctx); err != nil {
		t.Fatal(err)
	}
	if l, _ := c.Hooks(ctx); len(l.Hooks) != 0 {
		t.Fatalf("hooks not cleared: %+v", l)
	}
	if err := c.Hook(ctx, driver.HookRequest{Name: "on_session_end", Kwargs: map[string]any{"completed": true}}); err != nil {
		t.Fatal(err)
	}
	if l, _ := c.Hooks(ctx); len(l.Hooks) != 1 || l.Hooks[0].Seq != int64(len(list.Hooks)+1) || l.Hooks[0].Kwargs["completed"] != true {
		t.Fatalf("after clearing, hooks = %+v", l)
	}
	if !tr.seen["driver/hook-list"] {
		t.Fatal("no GET /hooks answer checked against its schema")
	}
}

// receivedByName groups the hooks an adapter received by name, in order,
// and counts them.
func receivedByName(evs []event) (map[string][]map[string]any, int) {
	out, n := map[string][]map[string]any{}, 0
	for _, e := range evs {
		if e.Kind == "hook" {
			out[e.Name] = append(out[e.Name], e.Kwargs)
			n++
		}
	}
	return out, n
}

// TestHookLogBound: the log keeps the newest maxHooks hooks, and holds at
// most a quarter more between trims.
func TestHookLogBound(t *testing.T) {
	m := New(Options{})
	l := &m.hookLog
	const n = 2*maxHooks + 5
	for range n {
		l.add("on_stream_delta", map[string]any{}, approxSize(map[string]any{}))
	}
	if len(l.log.entries) > maxHooks+maxHooks/4 {
		t.Fatalf("the log holds %d hooks", len(l.log.entries))
	}
	got := m.Hooks()
	if len(got) != maxHooks || got[0].Seq != n-maxHooks+1 || got[len(got)-1].Seq != n {
		t.Fatalf("%d hooks kept, seq %d to %d", len(got), got[0].Seq, got[len(got)-1].Seq)
	}
}

// TestBoundedLogBytes: past its byte bound the log drops its oldest
// entries, down to the bound, and always keeps the newest, however large;
// a cleared log numbers on.
func TestBoundedLogBytes(t *testing.T) {
	l := boundedLog[int64]{maxEntries: 100, maxBytes: 1000}
	for range 10 {
		l.add(100, func(seq int64) int64 { return seq })
	}
	if got := l.list(); len(got) != 10 || got[0] != 1 {
		t.Fatalf("within the bound: %v", got)
	}
	for range 3 { // 1300 bytes: a quarter over, trimmed to 1000
		l.add(100, func(seq int64) int64 { return seq })
	}
	if got := l.list(); len(got) != 10 || got[0] != 4 || got[9] != 13 || l.bytes != 1000 {
		t.Fatalf("a quarter over the byte bound: %v, %d bytes", got, l.bytes)
	}
	l.add(5000, func(seq int64) int64 { return seq })
	if got := l.list(); len(got) != 1 || got[0] != 14 {
		t.Fatalf("an entry larger than the bound: %v", got)
	}
	l.clear()
	if seq := l.add(1, func(seq int64) int64 { return seq }); seq != 15 || len(l.list()) != 1 {
		t.Fatalf("after clear: seq %d, %v", seq, l.list())
	}
}
