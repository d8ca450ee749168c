//go:build unix

package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// rawFrame is what the slow-consumer tests read off a raw connection.
type rawFrame struct {
	Seq     int64           `json:"seq"`
	Type    string          `json:"type"`
	EventID string          `json:"event_id"`
	Payload json.RawMessage `json:"payload"`
}

// setBuf returns a socket control function that sets a small, fixed
// buffer size (which also turns the kernel's autotuning off).
func setBuf(opt int) func(_, _ string, rc syscall.RawConn) error {
	return func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 4096) })
	}
}

// tinyBufferURL serves e's server on a second loopback listener whose
// connections have a tiny buffer (opt: SO_SNDBUF or SO_RCVBUF), and
// returns its WebSocket URL.
func tinyBufferURL(t *testing.T, e *env, opt int) string {
	t.Helper()
	ln, err := (&net.ListenConfig{Control: setBuf(opt)}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(e.srv.Handler())
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	return "ws" + strings.TrimPrefix(hs.URL, "http") + lmp.PathWebSocket
}

// dialTinyBuffer opens a raw WebSocket with tiny socket buffers on both
// ends, so that the server's writer blocks as soon as the test stops
// reading, and sends hello. It returns the connection and hello.ok.
func dialTinyBuffer(t *testing.T, e *env, h lmp.Hello) (*websocket.Conn, lmp.HelloOK) {
	t.Helper()
	dialer := &net.Dialer{Control: setBuf(syscall.SO_RCVBUF)}
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	ws, _, err := websocket.Dial(ctxT(t), tinyBufferURL(t, e, syscall.SO_SNDBUF), &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	ws.SetReadLimit(1 << 20)
	hello, _ := lmp.NewClientFrame(h)
	if err := ws.Write(ctxT(t), websocket.MessageText, mustJSON(hello)); err != nil {
		t.Fatal(err)
	}
	f := readRaw(t, ws)
	var ok lmp.HelloOK
	if f.Type != lmp.TypeHelloOK || json.Unmarshal(f.Payload, &ok) != nil {
		t.Fatalf("hello answered with %s %s", f.Type, f.Payload)
	}
	return ws, ok
}

func readRaw(t *testing.T, ws *websocket.Conn) rawFrame {
	t.Helper()
	_, raw, err := ws.Read(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var f rawFrame
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("frame %q: %v", raw, err)
	}
	return f
}

// A burst of events that stays within the replay window never
// disconnects a device, however slowly it is read and however small the
// reply queue: events are written from the shared log, not queued.
func TestBurstWithinWindowIsDelivered(t *testing.T) { // slow consumers
	const window, rounds = 64, 5
	e := newEnv(t, func(c *server.Config) { c.ReplayWindow = window; c.SendQueue = 1 })
	ws, _ := dialTinyBuffer(t, e, lmp.Hello{ProtocolVersion: 1, Token: e.token(0).Token})
	seq := int64(0)
	for r := 0; r < rounds; r++ {
		// Published in a tight loop while the device reads nothing at all:
		// its writer blocks on the full socket, its cursor stays put.
		e.notify(window-1, fmt.Sprintf("r%d-", r))
		ping, _ := lmp.NewClientFrame(lmp.Ping{})
		if err := ws.Write(ctxT(t), websocket.MessageText, mustJSON(ping)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < window-1; i++ {
			seq++
			if f := readRaw(t, ws); f.Type != lmp.TypeNotification || f.Seq != seq || f.EventID != lmp.EventID(seq) {
				t.Fatalf("round %d: got %s seq %d, want notification seq %d", r, f.Type, f.Seq, seq)
			}
		}
		// A reply follows every event published before its request.
		if f := readRaw(t, ws); f.Type != lmp.TypePong || f.Seq != seq {
			t.Fatalf("round %d: got %s seq %d, want pong seq %d", r, f.Type, f.Seq, seq)
		}
	}
	if strings.Contains(e.logs.String(), "slow consumer") {
		t.Fatal("a device within the window was treated as a slow consumer")
	}
}

// A device that stops reading is closed with 1013 once it is more than
// ReplayWindow events behind; other devices get everything meanwhile, and
// the stalled device's next hello gets what the window still holds,
// truncated.
func TestSlowConsumerFallsOutOfWindow(t *testing.T) { // slow consumers, E-5, E-6
	const window, chunk = 16, 8
	e := newEnv(t, func(c *server.Config) { c.ReplayWindow = window })
	fast, _ := e.pair()
	ws, ok := dialTinyBuffer(t, e, lmp.Hello{ProtocolVersion: 1, Token: e.token(0).Token})
	slow := client.Device{ID: ok.DeviceID, Credential: *ok.Credential}
	big := strings.Repeat("z", 16<<10)
	published := 0
	for !strings.Contains(e.logs.String(), "slow consumer") {
		if published > 40*window {
			t.Fatal("the stalled device was never disconnected")
		}
		// The device that reads keeps up: it reads each chunk before the
		// next, so it is never more than a chunk behind.
		for j := 0; j < chunk; j++ {
			e.srv.Send(context.Background(), "", big, nil)
		}
		published += chunk
		if got := takeNotifications(t, fast, chunk); got[chunk-1].Seq != int64(published) {
			t.Fatalf("fast device: seq %d after %d events", got[chunk-1].Seq, published)
		}
	}
	// The stalled device now reads: what was written before the failure,
	// then the fatal slow_consumer error carrying the last seq it got, then
	// the 1013 close.
	read := int64(0)
	for {
		_, raw, err := ws.Read(ctxT(t))
		if err != nil {
			if ce := (websocket.CloseError{}); !errors.As(err, &ce) || ce.Code != lmp.CloseTryAgainLater {
				t.Fatalf("stalled device: %v, want close 1013", err)
			}
			break
		}
		var f rawFrame
		_ = json.Unmarshal(raw, &f)
		switch f.Type {
		case lmp.TypeNotification:
			if read++; f.Seq != read {
				t.Fatalf("stalled device: seq %d after %d", f.Seq, read-1)
			}
		case lmp.TypeError:
			var er lmp.Error
			_ = json.Unmarshal(f.Payload, &er)
			if er.Code != lmp.CodeSlowConsumer || !er.Fatal || f.Seq != read {
				t.Fatalf("stalled device: error %+v seq %d after %d events", er, f.Seq, read)
			}
		default:
			t.Fatalf("stalled device: unexpected %s", raw)
		}
	}
	if read >= int64(published-window) {
		t.Fatalf("closed with %d of %d events read: not out of a %d-event window", read, published, window)
	}
	waitOnline(t, e, slow.ID, 0)

	// Its next hello: the window's events, truncated; hello.ok carries the
	// seq just before the first of them.
	c, hok := e.connect(slow, ptr(read))
	if !hok.Truncated {
		t.Fatal("a gap larger than the window was not reported truncated")
	}
	got := takeNotifications(t, c, window)
	if got[0].Seq != int64(published-window+1) || got[window-1].Seq != int64(published) {
		t.Fatalf("replay %d..%d, want %d..%d", got[0].Seq, got[window-1].Seq, published-window+1, published)
	}
	// A gap the window still holds is replayed in full.
	c2, hok2 := e.connect(slow, ptr(int64(published-3)))
	if hok2.Truncated {
		t.Fatal("a gap within the window was reported truncated")
	}
	if got := takeNotifications(t, c2, 3); got[0].Seq != int64(published-2) || got[2].Seq != int64(published) {
		t.Fatal("replay within the window incomplete")
	}
}

// A client that pipelines requests without reading the replies is slowed
// down, not disconnected: the reader waits for room in the reply queue.
func TestPipelinedRequestsAreNotDropped(t *testing.T) { // slow consumers, I-1
	const queue = 32
	const n = 4 * queue
	e := newEnv(t, func(c *server.Config) { c.SendQueue = queue })
	ws, _ := dialTinyBuffer(t, e, lmp.Hello{ProtocolVersion: 1, Token: e.token(0).Token})
	pad := strings.Repeat("p", 100) // longer replies fill the socket sooner
	sent := make(chan error, 1)
	go func() {
		// The writes may block in turn once the server stops reading; that
		// is the backpressure under test, so they run beside the reads.
		for i := 0; i < n; i++ {
			f, _ := lmp.NewClientFrame(lmp.SessionSend{RequestID: fmt.Sprintf("r%03d-%s", i, pad), Text: "hi"})
			if err := ws.Write(context.Background(), websocket.MessageText, mustJSON(f)); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	// Read nothing until the server waits for room (or has taken them all).
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(e.logs.String(), "reply queue full") && len(e.hermes.callsNamed("handle_message")) < n {
		if time.Now().After(deadline) {
			t.Fatal("the server neither took every request nor waited for room")
		}
		time.Sleep(time.Millisecond) // polling the server's state
	}
	for i := 0; i < n; i++ {
		f := readRaw(t, ws)
		var ack lmp.Ack
		_ = json.Unmarshal(f.Payload, &ack)
		if f.Type != lmp.TypeAck || ack.RequestID != fmt.Sprintf("r%03d-%s", i, pad) {
			t.Fatalf("reply %d: %s %s", i, f.Type, f.Payload)
		}
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	ping, _ := lmp.NewClientFrame(lmp.Ping{})
	_ = ws.Write(ctxT(t), websocket.MessageText, mustJSON(ping))
	if f := readRaw(t, ws); f.Type != lmp.TypePong {
		t.Fatalf("after the pipeline: %s", f.Type)
	}
	if !strings.Contains(e.logs.String(), "reply queue full") {
		t.Fatal("the socket buffers absorbed every reply: backpressure not exercised")
	}
}

// The 1009 close for an oversized frame reaches a client that is still
// writing it: the server reads and discards the rest of the frame instead
// of closing the socket on unread data, which would reset the connection.
func TestOversizeFrameIsNotReset(t *testing.T) {
	e := newEnv(t)
	// Tiny buffers on the way to the server: most of the frame is still to
	// be sent when the server hits the read limit.
	hc := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Control: setBuf(syscall.SO_SNDBUF)}).DialContext}}
	ws, _, err := websocket.Dial(ctxT(t), tinyBufferURL(t, e, syscall.SO_RCVBUF), &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	hello, _ := lmp.NewClientFrame(lmp.Hello{ProtocolVersion: 1, Token: e.token(0).Token})
	_ = ws.Write(ctxT(t), websocket.MessageText, mustJSON(hello))
	if f := readRaw(t, ws); f.Type != lmp.TypeHelloOK {
		t.Fatalf("hello answered with %s", f.Type)
	}
	big := `{"v":1,"type":"session.send","payload":{"request_id":"r","text":"` + strings.Repeat("x", 2*lmp.MaxFrameBytes) + `"}}`
	if err := ws.Write(ctxT(t), websocket.MessageText, []byte(big)); err != nil {
		t.Fatalf("writing the oversized frame: %v", err)
	}
	if _, _, err := ws.Read(ctxT(t)); websocket.CloseStatus(err) != lmp.CloseMessageTooBig {
		t.Fatalf("read %v, want close 1009", err)
	}
}
