package campaign

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
)

// writeLog is a net.Conn that records its writes.
type writeLog struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes = append(w.writes, bytes.Clone(p))
	w.mu.Unlock()
	return w.Conn.Write(p)
}

func (w *writeLog) taken() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

// TestEpisodeSendsItsStepsTogether plays an episode over the campaign's own
// transport and checks that its steps and sentinel left in one write, and
// that the server still read and answered each of them.
func TestEpisodeSendsItsStepsTogether(t *testing.T) {
	var mu sync.Mutex
	var read []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		for {
			_, data, err := ws.Read(r.Context())
			if err != nil {
				return
			}
			mu.Lock()
			read = append(read, string(data))
			mu.Unlock()
			if frameTypeOf(data) == "ping" {
				_ = ws.Write(r.Context(), websocket.MessageText, []byte(`{"v":1,"type":"pong","payload":{}}`))
			}
		}
	}))
	defer srv.Close()

	var logs []*writeLog
	var logsMu sync.Mutex
	tr := campaignTransport()
	tr.DialContext = batchDialer(func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		l := &writeLog{Conn: c}
		logsMu.Lock()
		logs = append(logs, l)
		logsMu.Unlock()
		return l, nil
	})
	hc := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()

	steps := []string{
		`{"v":1,"type":"task.list","payload":{"request_id":"r1"}}`,
		`{"v":1,"type":"task.list","payload":{"request_id":"r2"}}`,
		`{"v":1,"type":"task.list","payload":{"request_id":"r3"}}`,
	}
	ep := Episode{Kind: "test"}
	for _, s := range steps {
		ep.Steps = append(ep.Steps, Step{Op: OpText, Data: []byte(s)})
	}
	o := &connOracle{secrets: newSecretSet(), authed: true}
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	res := runEpisode(context.Background(), url, hc, ep, func(b []byte) []byte { return b }, o, campaignTimings, false)
	if res.dialErr != nil {
		t.Fatal(res.dialErr)
	}
	if res.sent != len(steps) {
		t.Fatalf("sent %d frames, want %d", res.sent, len(steps))
	}
	mu.Lock()
	got := strings.Join(read, "\n")
	mu.Unlock()
	if want := strings.Join(append(steps, string(sentinel)), "\n"); got != want {
		t.Fatalf("the server read\n%s\nwant\n%s", got, want)
	}

	logsMu.Lock()
	defer logsMu.Unlock()
	if len(logs) != 1 {
		t.Fatalf("%d connections dialed, want 1", len(logs))
	}
	writes := logs[0].taken()
	// The upgrade request, the steps and the sentinel together, then the
	// close frame.
	if len(writes) != 3 {
		t.Fatalf("the connection was written %d times, want 3 (upgrade, the episode, close): %q", len(writes), writes)
	}
	if !strings.HasPrefix(string(writes[0]), "GET ") {
		t.Fatalf("first write is not the upgrade request: %q", writes[0])
	}
	// Client frames are masked: the episode's write is as long as its
	// frames with their headers (2 + 4 bytes each, under 126 bytes).
	wantLen := 0
	for _, s := range append(steps, string(sentinel)) {
		wantLen += 6 + len(s)
	}
	if len(writes[1]) != wantLen {
		t.Fatalf("the episode's write holds %d bytes, want %d (every step and the sentinel)", len(writes[1]), wantLen)
	}
}
