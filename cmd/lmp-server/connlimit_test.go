package main

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestConnectionCaps: against a real lmp-server process with a cap of 2
// connections per device and 6 per process, one device's third connection
// closes its oldest with connection_limit and 1008, logged; the process's
// seventh WebSocket is refused with 503 while /health, the other
// connections and, once a slot is free, another device's pairing work.
func TestConnectionCaps(t *testing.T) {
	addr := freeAddr(t)
	p := startServer(t, t.TempDir(), addr, "--no-qr", "--max-device-conns", "2", "--max-conns", "6")
	_, a1, dev := p.pairDevice(t)
	defer a1.CloseNow()
	a2, _, err := client.Connect(ctxT(t), p.ws(), dev, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.CloseNow()
	a3, _, err := client.Connect(ctxT(t), p.ws(), dev, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a3.CloseNow()
	f, err := a1.ExpectType(ctxT(t), lmp.TypeError)
	if err != nil {
		t.Fatalf("the device's oldest connection: expected an error frame, got %v\n%s", err, a1.Transcript())
	}
	if e, err := lmp.DecodePayload[lmp.Error](f.Type, f.Payload); err != nil || e.Code != lmp.CodeConnectionLimit || !e.Fatal {
		t.Fatalf("the device's oldest connection: expected a fatal %s, got %+v (%v)", lmp.CodeConnectionLimit, e, err)
	}
	if ce, err := a1.WaitClosed(ctxT(t)); err != nil || ce.Code != lmp.ClosePolicyViolation {
		t.Fatalf("the device's oldest connection: expected close 1008, got %v (%v)", ce, err)
	}
	for i, c := range []*client.Conn{a2, a3} {
		if err := c.Send(ctxT(t), lmp.Ping{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExpectType(ctxT(t), lmp.TypePong); err != nil {
			t.Fatalf("newer connection %d: %v", i+2, err)
		}
	}
	if !strings.Contains(p.Stderr.String(), "closing the device's oldest connection") {
		t.Fatalf("the superseded connection was not logged:\n%s", p.Stderr)
	}

	// 2 live; 4 that never authenticate fill the process's cap of 6.
	var idle []*websocket.Conn
	defer func() {
		for _, c := range idle {
			c.CloseNow()
		}
	}()
	for range 4 {
		c, _, err := websocket.Dial(ctxT(t), p.ws(), nil)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	_, resp, err := websocket.Dial(ctxT(t), p.ws(), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		t.Fatalf("a WebSocket over the process's cap: expected 503 with Retry-After, got %d (%v)", code, err)
	}
	if resp, err := http.Get("http://" + addr + lmp.PathHealth); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/health at the connection cap: %v %v", resp, err)
	}
	if !strings.Contains(p.Stderr.String(), "connection refused: the server holds its maximum of WebSockets") {
		t.Fatalf("the refused connection was not logged:\n%s", p.Stderr)
	}
	// A slot freed, another device pairs.
	idle[0].CloseNow()
	idle = idle[1:]
	var paired error
	for range 50 { // the server notices the closed socket a moment later
		pr, err := client.Pair(ctxT(t), "http://"+addr+lmp.PathPairNew, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var c *client.Conn
		if c, _, _, paired = client.PairDevice(ctxT(t), p.ws(), pr.Token, nil); paired == nil {
			c.CloseNow()
			break
		}
		var ce *client.CloseError
		if !errors.As(paired, &ce) && !strings.Contains(paired.Error(), "503") {
			t.Fatalf("pairing after a slot freed: %v", paired)
		}
	}
	if paired != nil {
		t.Fatalf("pairing after a slot freed: %v", paired)
	}
}
