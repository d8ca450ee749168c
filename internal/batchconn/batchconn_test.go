package batchconn

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// writeLog is a net.Conn that records its writes and write deadlines.
type writeLog struct {
	net.Conn
	mu        sync.Mutex
	writes    [][]byte
	deadlines []time.Time
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes = append(w.writes, bytes.Clone(p))
	w.mu.Unlock()
	return w.Conn.Write(p)
}

func (w *writeLog) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	w.deadlines = append(w.deadlines, t)
	w.mu.Unlock()
	return w.Conn.SetWriteDeadline(t)
}

func (w *writeLog) taken() ([][]byte, []time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	writes, deadlines := w.writes, w.deadlines
	w.writes, w.deadlines = nil, nil
	return writes, deadlines
}

// pipePair is a connected TCP pair on loopback: the writer's side, logged,
// and the reader's.
func pipePair(t *testing.T) (*writeLog, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return &writeLog{Conn: c}, peer
}

func TestHoldsWritesUntilRelease(t *testing.T) {
	raw, peer := pipePair(t)
	c := New(raw)

	if _, err := c.Write([]byte("straight")); err != nil {
		t.Fatal(err)
	}
	if w, _ := raw.taken(); len(w) != 1 || string(w[0]) != "straight" {
		t.Fatalf("a write that is not held: got writes %q, want one of %q", w, "straight")
	}

	c.Hold()
	for _, p := range []string{"one,", "two,", "three"} {
		if n, err := c.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("held write of %q: n=%d err=%v", p, n, err)
		}
	}
	if w, _ := raw.taken(); len(w) != 0 {
		t.Fatalf("held writes reached the socket before Release: %q", w)
	}
	if err := c.Release(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	w, d := raw.taken()
	if len(w) != 1 || string(w[0]) != "one,two,three" {
		t.Fatalf("Release: got writes %q, want one write of %q", w, "one,two,three")
	}
	if len(d) != 2 || d[0].IsZero() || !d[1].IsZero() {
		t.Fatalf("Release must bound its write and then clear the deadline: got deadlines %v", d)
	}

	if c.pending != nil {
		t.Fatal("a released Conn keeps its buffer: every idle connection would hold one")
	}

	// After Release, writes go straight through again.
	if _, err := c.Write([]byte("after")); err != nil {
		t.Fatal(err)
	}
	if w, _ := raw.taken(); len(w) != 1 || string(w[0]) != "after" {
		t.Fatalf("a write after release: got writes %q", w)
	}

	// Beyond Limit, what is held goes out with the write that
	// overflows it, in order.
	c.Hold()
	small := bytes.Repeat([]byte("a"), 1000)
	big := bytes.Repeat([]byte("b"), Limit)
	for _, p := range [][]byte{small, big} {
		if _, err := c.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Release(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	want := "straight" + "one,two,three" + "after" + string(small) + string(big)
	got := make([]byte, len(want))
	_ = peer.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(peer, got); err != nil {
		t.Fatalf("peer read: %v", err)
	}
	if string(got) != want {
		t.Fatalf("the peer read the bytes out of order or changed (%d bytes)", len(got))
	}
}

// TestReleaseIsBounded: Release of bytes the peer never reads ends with an
// error within its timeout, as the write of a frame does.
func TestReleaseIsBounded(t *testing.T) {
	raw, _ := pipePair(t) // the peer reads nothing
	c := New(raw)
	chunk := bytes.Repeat([]byte("x"), Limit)
	errc := make(chan error, 1)
	go func() {
		for {
			c.Hold()
			if _, err := c.Write(chunk); err != nil {
				errc <- err
				return
			}
			if err := c.Release(time.Now().Add(200 * time.Millisecond)); err != nil {
				errc <- err
				return
			}
		}
	}()
	select {
	case err := <-errc:
		if !isTimeout(err) {
			t.Fatalf("want a timeout once the socket's buffers are full, got %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("release blocked past its timeout on a peer that reads nothing")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// logListener hands out its connections as writeLogs.
type logListener struct {
	net.Listener
	conns chan *writeLog
}

func (l *logListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	w := &writeLog{Conn: c}
	l.conns <- w
	return w, nil
}

// TestHijackedHoldsAWebSocketServersWrites: a WebSocket server accepted
// through Hijacked writes its frames through the Conn, so that held
// frames leave in one write and a client reads them all, in order.
func TestHijackedHoldsAWebSocketServersWrites(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ll := &logListener{Listener: ln, conns: make(chan *writeLog, 1)}
	frames := []string{"one", "two", "three"}
	srv := httptest.NewUnstartedServer(acceptHijacked(t, func(h *Hijacked, ws *websocket.Conn, r *http.Request) {
		h.Conn.Hold()
		for _, f := range frames {
			if err := ws.Write(r.Context(), websocket.MessageText, []byte(f)); err != nil {
				t.Errorf("held write: %v", err)
				return
			}
		}
		if err := h.Conn.Release(time.Time{}); err != nil {
			t.Errorf("release: %v", err)
			return
		}
		_, _, _ = ws.Read(r.Context()) // until the client closes
	}))
	srv.Listener = ll
	srv.Start()
	defer srv.Close()

	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	for _, want := range frames {
		_, got, err := ws.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("read %q, want %q", got, want)
		}
	}
	writes, _ := (<-ll.conns).taken()
	// The 101 response, then the three frames (2-byte headers, unmasked)
	// in one write.
	if len(writes) != 2 || !strings.HasPrefix(string(writes[0]), "HTTP/1.1 101") || len(writes[1]) != 2*3+len("onetwothree") {
		t.Fatalf("the server's socket was written %d times: %q; want the upgrade's answer and one write of the three frames", len(writes), writes)
	}
}

// TestCloseWritesWhatIsHeld: coder/websocket answers a peer's close frame
// and closes the connection at once, from its reader. With the writer
// holding a burst, the answer was held and dropped by the close: the peer
// saw the connection end without a close handshake.
func TestCloseWritesWhatIsHeld(t *testing.T) {
	srv := httptest.NewServer(acceptHijacked(t, func(h *Hijacked, ws *websocket.Conn, r *http.Request) {
		h.Conn.Hold() // a burst under way, never released
		_, _, _ = ws.Read(r.Context())
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if err := ws.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatalf("close handshake: %v", err)
	}
}

// TestCloseEndsAStuckWrite: a write stuck on a peer that reads nothing
// holds the Conn's lock; Close does not wait for it, and the write fails.
func TestCloseEndsAStuckWrite(t *testing.T) {
	w, r := pipePair(t)
	defer r.Close()
	c := New(w)
	failed := make(chan error, 1)
	go func() {
		big := make([]byte, 64<<20) // more than the socket buffers take
		_, err := c.Write(big)
		failed <- err
	}()
	// The write holds the lock once it is under way.
	deadline := time.Now().Add(10 * time.Second)
	for c.mu.TryLock() {
		c.mu.Unlock()
		select {
		case err := <-failed:
			t.Skipf("the socket took the whole write (%v): nothing got stuck", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the 64 MiB write never started")
		}
		runtime.Gosched()
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the stuck write")
	}
	if err := <-failed; err == nil {
		t.Fatal("the stuck write succeeded after Close")
	}
}

// acceptHijacked is a handler that upgrades through a Hijacked writer and
// hands the connection to serve, closing it after.
func acceptHijacked(t *testing.T, serve func(h *Hijacked, ws *websocket.Conn, r *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := &Hijacked{ResponseWriter: w}
		ws, err := websocket.Accept(h, r, nil)
		if err != nil {
			t.Errorf("accept: %v", err)
			return
		}
		defer ws.CloseNow()
		if h.Conn == nil {
			t.Error("Hijacked.Conn is nil after the upgrade")
			return
		}
		serve(h, ws, r)
	})
}
