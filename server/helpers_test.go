package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// fakeHermes records the calls the server makes into Hermes and behaves
// like the gateway where the tests need it: resolve_gateway_approval
// resolves each pending approval once and fires post_approval_response;
// /stop fires agent_loop_stopped.
type fakeHermes struct {
	mu       sync.Mutex
	adapter  hermes.Adapter
	calls    []call
	pending  map[string]bool // approval request ids still waiting
	sessions []hermes.SessionRow
	failNext error
	// held, when set, holds every handle_message until it is closed (or
	// the call's context ends), as a slow gateway would.
	held chan struct{}
}

type call struct {
	Name string
	Args map[string]any
}

func newFakeHermes() *fakeHermes { return &fakeHermes{pending: make(map[string]bool)} }

func (h *fakeHermes) record(name string, args map[string]any) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, call{name, args})
	err := h.failNext
	h.failNext = nil
	return err
}

func (h *fakeHermes) callsNamed(name string) []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []call
	for _, c := range h.calls {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

func (h *fakeHermes) ResolveGatewayApproval(ctx context.Context, sessionKey, choice string, resolveAll bool, reason, requestID string) (int, error) {
	if err := h.record("resolve_gateway_approval", map[string]any{"session_key": sessionKey, "choice": choice, "reason": reason, "request_id": requestID}); err != nil {
		return 0, err
	}
	h.mu.Lock()
	ok := h.pending[requestID]
	delete(h.pending, requestID)
	h.mu.Unlock()
	if !ok {
		return 0, nil
	}
	h.adapter.Hook(ctx, "post_approval_response", map[string]any{"session_key": sessionKey, "choice": choice, "surface": "gateway"})
	return 1, nil
}

func (h *fakeHermes) HandleMessage(ctx context.Context, ev hermes.MessageEvent) error {
	if err := h.record("handle_message", map[string]any{"text": ev.Text, "chat_id": ev.Source.ChatID, "user_id": ev.Source.UserID}); err != nil {
		return err
	}
	h.mu.Lock()
	held := h.held
	h.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if ev.Text == hermes.StopCommand {
		// The gateway's /stop: interrupt_session_activity, then agent_loop_stopped.
		key := hermes.SessionKeyPrefix + ev.Source.ChatID
		h.adapter.InterruptSessionActivity(ctx, key, ev.Source.ChatID)
		h.adapter.Hook(ctx, "agent_loop_stopped", map[string]any{"session_key": key, "platform": "loomi", "reason": "stop", "invalidation_reason": "stop_command"})
	}
	return nil
}

func (h *fakeHermes) ListSessions(ctx context.Context, opts hermes.ListSessionsOptions) ([]hermes.SessionRow, error) {
	if err := h.record("list_sessions_rich", map[string]any{"limit": opts.Limit, "source": opts.Source}); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var rows []hermes.SessionRow
	for _, r := range h.sessions {
		if opts.Source == "" || r.Source == opts.Source {
			rows = append(rows, r)
		}
	}
	if opts.Limit > 0 && opts.Limit < len(rows) {
		rows = rows[:opts.Limit]
	}
	return rows, nil
}

// holdMessages holds every handle_message from now on until the returned
// release is called.
// GetSession is get_session over the rows setSessions gave.
func (h *fakeHermes) GetSession(ctx context.Context, id string) (hermes.SessionRow, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, call{"get_session", map[string]any{"session_id": id}})
	for _, r := range h.sessions {
		if r.ID == id {
			return r, true, nil
		}
	}
	return hermes.SessionRow{}, false, nil
}

func (h *fakeHermes) holdMessages() (release func()) {
	held := make(chan struct{})
	h.mu.Lock()
	h.held = held
	h.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(held) }) }
}

// setSessions replaces the session store's rows, newest first.
func (h *fakeHermes) setSessions(rows ...hermes.SessionRow) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions = rows
}

// askApproval plays the gateway asking for an approval.
func (h *fakeHermes) askApproval(t *testing.T, task, requestID string) {
	t.Helper()
	h.mu.Lock()
	h.pending[requestID] = true
	h.mu.Unlock()
	key := hermes.SessionKeyPrefix + task
	h.adapter.Hook(context.Background(), "pre_approval_request", map[string]any{"session_key": key, "command": "rm -rf /tmp/x"})
	err := h.adapter.SendExecApprovalPrompt(context.Background(), hermes.ExecApprovalPrompt{
		ChatID: task, Command: "rm -rf /tmp/x", SessionKey: key, RequestID: requestID,
		SmartDenied: true, // offers once and deny
	})
	if err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// env is a server on a real loopback listener with a fake Hermes.
type env struct {
	t      *testing.T
	srv    *server.Server
	hs     *httptest.Server
	hermes *fakeHermes
	dir    string
	logs   *syncBuffer
	wsURL  string
	stop   func()
}

func fastConfig(c *server.Config) {
	c.PingInterval = time.Minute
	c.PongTimeout = time.Minute
	c.AuthTimeout = 5 * time.Second
}

func newEnv(t *testing.T, mutate ...func(*server.Config)) *env {
	t.Helper()
	return newEnvIn(t, t.TempDir(), mutate...)
}

func newEnvIn(t *testing.T, dir string, mutate ...func(*server.Config)) *env {
	t.Helper()
	e := &env{t: t, hermes: newFakeHermes(), dir: dir, logs: &syncBuffer{}}
	cfg := server.Config{
		Name: "test-host", DataDir: dir, Hermes: e.hermes,
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	fastConfig(&cfg)
	for _, m := range mutate {
		m(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.hermes.adapter = srv
	e.hs = httptest.NewServer(srv.Handler())
	e.wsURL = "ws" + strings.TrimPrefix(e.hs.URL, "http") + lmp.PathWebSocket
	var once sync.Once
	e.stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.Shutdown(ctx)
			e.hs.Close()
		})
	}
	t.Cleanup(e.stop)
	return e
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (e *env) token(ttl time.Duration) lmp.PairResponse {
	e.t.Helper()
	pr, err := client.Pair(ctxT(e.t), e.hs.URL+lmp.PathPairNew, ttl, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return pr
}

// pair pairs a new device and returns its live connection.
func (e *env) pair(opts ...*client.Options) (*client.Conn, client.Device) {
	e.t.Helper()
	var o *client.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	c, d, _, err := client.PairDevice(ctxT(e.t), e.wsURL, e.token(0).Token, o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.CloseNow() })
	return c, d
}

func (e *env) connect(d client.Device, lastSeq *int64) (*client.Conn, lmp.HelloOK) {
	e.t.Helper()
	c, ok, err := client.Connect(ctxT(e.t), e.wsURL, d, lastSeq, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.CloseNow() })
	return c, ok
}

// notify publishes n notifications through the adapter's send().
func (e *env) notify(n int, prefix string) {
	for i := 0; i < n; i++ {
		e.srv.Send(context.Background(), "task_n", fmt.Sprintf("%s%d", prefix, i), nil)
	}
}

// expectErrorClose waits for a fatal error with code and then the close.
func expectErrorClose(t *testing.T, c *client.Conn, code string, closeCode int) lmp.Error {
	t.Helper()
	ctx := ctxT(t)
	f, err := c.ExpectType(ctx, lmp.TypeError)
	if err != nil {
		t.Fatalf("waiting for error %s: %v\n%s", code, err, c.Transcript())
	}
	e, err := lmp.DecodePayload[lmp.Error](f.Type, f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if e.Code != code || !e.Fatal {
		t.Fatalf("error %+v, want fatal %s", e, code)
	}
	ce, err := c.WaitClosed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ce.Code != closeCode {
		t.Fatalf("closed with %d, want %d", ce.Code, closeCode)
	}
	return e
}

func decode[T lmp.Payload](t *testing.T, f client.Frame) T {
	t.Helper()
	p, err := lmp.DecodePayload[T](f.Type, f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func expectType[T lmp.Payload](t *testing.T, c *client.Conn) (client.Frame, T) {
	t.Helper()
	var zero T
	f, err := c.ExpectType(ctxT(t), zero.FrameType())
	if err != nil {
		t.Fatalf("waiting for %s: %v\n%s", zero.FrameType(), err, c.Transcript())
	}
	return f, decode[T](t, f)
}

func mustJSON(v any) json.RawMessage {
	raw, _ := json.Marshal(v)
	return raw
}

func httpDo(t *testing.T, method, url string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctxT(t), method, url, strings.NewReader("{}"))
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp, b.Bytes()
}

func ptr[T any](v T) *T { return &v }

func jsonDecode(resp *http.Response, v any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }
