package server

import (
	"context"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/coder/websocket"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestClosedConnectionIsNotKept ends a connection with a fatal error, as
// most of a fuzzer's episodes end, and checks that nothing keeps it once
// it is closed: the fatal close's bound, a timer of closeBound, kept
// every such connection with its buffers for 13 s after its end.
func TestClosedConnectionIsNotKept(t *testing.T) {
	s, err := New(Config{Name: "end", DataDir: t.TempDir(), Hermes: struct{ hermes.Hermes }{}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	defer s.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+lmp.PathWebSocket, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	var kept weak.Pointer[conn]
	for kept.Value() == nil { // the handler registers the connection after the upgrade
		s.mu.Lock()
		for c := range s.conns {
			kept = weak.Make(c)
		}
		s.mu.Unlock()
		if ctx.Err() != nil {
			t.Fatal("the connection was never registered")
		}
		runtime.Gosched()
	}
	// Not a hello: refused with a fatal error, then closed.
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"v":1,"type":"ping","payload":{}}`)); err != nil {
		t.Fatal(err)
	}
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			break // the close
		}
	}
	for { // the handler's end: it waits for the writer and the request goroutine
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n == 0 && kept.Value() != nil && kept.Value().ended.Load() {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the connection never ended")
		}
		runtime.Gosched()
	}
	// The handler returns soon after; the old timer kept the connection
	// for closeBound, so half of it is the bound here.
	deadline := time.Now().Add(closeBound / 2)
	for kept.Value() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the closed connection is still reachable %v after its end", closeBound/2)
		}
		runtime.GC()
		runtime.Gosched()
	}
}
