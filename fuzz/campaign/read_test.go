package campaign

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// stallingServer accepts one WebSocket connection by hand, sends the
// header of a 1,000-byte text frame and 10 bytes of it, and then nothing:
// a server that holds a message half sent.
func stallingServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		t.Cleanup(func() { c.Close() })
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		_, _ = c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"))
		_, _ = c.Write([]byte{0x81, 126, 0x03, 0xe8}) // fin, text, 1,000 bytes
		_, _ = c.Write([]byte("0123456789"))
	}()
	return "ws://" + ln.Addr().String()
}

// TestReaderCloseIsBounded: closing a connection whose server holds a
// message half sent ends within the bound, and the reader gets an error,
// not the part it read as a whole message.
func TestReaderCloseIsBounded(t *testing.T) {
	ws, _, err := websocket.Dial(context.Background(), stallingServer(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	rd := newMsgReader(ws)
	type result struct {
		data []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		_, data, err := rd.read(context.Background())
		got <- result{append([]byte(nil), data...), err}
	}()
	// Wait until the reader is inside the message (it holds reading).
	for deadline := time.Now().Add(30 * time.Second); ; {
		if !rd.reading.TryLock() {
			break
		}
		rd.reading.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the reader never began the half-sent message")
		}
		time.Sleep(time.Millisecond)
	}

	closed := make(chan struct{})
	go func() {
		_ = rd.close(websocket.StatusNormalClosure, 100*time.Millisecond)
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("close waited on the half-sent message past its bound of 100ms")
	}
	select {
	case r := <-got:
		if r.err == nil {
			t.Fatalf("the reader returned the %d bytes of a half-sent message as a whole one: %q", len(r.data), r.data)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the reader did not end once the connection was dropped")
	}
}
