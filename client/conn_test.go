package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// scriptedServer accepts one WebSocket and runs script on it.
func scriptedServer(t *testing.T, script func(ctx context.Context, ws *websocket.Conn)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		script(r.Context(), ws)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"
}

func writeFrame(t *testing.T, ctx context.Context, ws *websocket.Conn, seq int64, p lmp.Payload) {
	t.Helper()
	f, err := lmp.NewFrame(seq, time.Now(), nil, nil, p)
	if err != nil {
		t.Error(err)
		return
	}
	data, _ := json.Marshal(f)
	if err := ws.Write(ctx, websocket.MessageText, data); err != nil {
		t.Error(err)
	}
}

func readClientFrame(ctx context.Context, ws *websocket.Conn) (lmp.ClientFrame, error) {
	_, data, err := ws.Read(ctx)
	if err != nil {
		return lmp.ClientFrame{}, err
	}
	var f lmp.ClientFrame
	return f, json.Unmarshal(data, &f)
}

func TestHelloAutoPongExpectAndRedaction(t *testing.T) {
	const token, credential = "tok-SECRET-123456", "cred-SECRET-abcdef"
	gotPong := make(chan struct{})
	url := scriptedServer(t, func(ctx context.Context, ws *websocket.Conn) {
		hello, err := readClientFrame(ctx, ws)
		if err != nil || hello.Type != lmp.TypeHello {
			t.Errorf("first frame: %v %+v", err, hello)
			return
		}
		writeFrame(t, ctx, ws, 0, lmp.Notification{Category: "result", Title: "early"})
		writeFrame(t, ctx, ws, 0, lmp.HelloOK{DeviceID: "dev_1", Credential: lmp.Ref(credential), ProtocolVersion: 1})
		writeFrame(t, ctx, ws, 0, lmp.Ping{})
		if f, err := readClientFrame(ctx, ws); err != nil || f.Type != lmp.TypePong {
			t.Errorf("want pong, got %v %+v", err, f)
			return
		}
		close(gotPong)
		ws.Close(websocket.StatusPolicyViolation, "bye")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ok, err := c.Hello(ctx, lmp.Hello{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if ok.DeviceID != "dev_1" || lmp.Deref(ok.Credential) != credential {
		t.Fatalf("hello.ok = %+v", ok)
	}
	// The notification that arrived before hello.ok is still first in line.
	f, err := c.Next(ctx)
	if err != nil || f.Type != lmp.TypeNotification {
		t.Fatalf("Next = %v, %v; want the early notification", f.Type, err)
	}
	select {
	case <-gotPong:
	case <-ctx.Done():
		t.Fatal("server never got the automatic pong")
	}
	ce, err := c.WaitClosed(ctx)
	if err != nil || ce.Code != 1008 || ce.Reason != "bye" {
		t.Fatalf("WaitClosed = %+v, %v", ce, err)
	}
	if _, err := c.Next(ctx); err != nil {
		// the ping is still in the inbox
		t.Fatalf("ping should remain in the inbox: %v", err)
	}
	var closeErr *client.CloseError
	if _, err := c.Next(ctx); !errors.As(err, &closeErr) {
		t.Fatalf("Next after close = %v, want *CloseError", err)
	}
	text := c.Transcript().String()
	for _, secret := range []string{token, credential} {
		if strings.Contains(text, secret) {
			t.Fatalf("transcript leaks a secret:\n%s", c.Transcript().Redact(text))
		}
	}
	if !strings.Contains(text, lmp.Redacted+":"+lmp.Fingerprint(token)) {
		t.Fatalf("transcript does not name the token by fingerprint:\n%s", text)
	}
}

func TestHelloReturnsServerError(t *testing.T) {
	url := scriptedServer(t, func(ctx context.Context, ws *websocket.Conn) {
		if _, err := readClientFrame(ctx, ws); err != nil {
			return
		}
		writeFrame(t, ctx, ws, 0, lmp.Error{Code: lmp.CodeInvalidToken, Message: "unknown token", Fatal: true})
		ws.Close(websocket.StatusPolicyViolation, "invalid token")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	_, err = c.Hello(ctx, lmp.Hello{Token: "nope"})
	var se *client.ServerError
	if !errors.As(err, &se) || se.Payload.Code != lmp.CodeInvalidToken || !se.Payload.Fatal {
		t.Fatalf("Hello error = %v, want fatal invalid_token", err)
	}
}

func TestPairURLFor(t *testing.T) {
	for in, want := range map[string]string{
		"ws://127.0.0.1:8787/ws":       "http://127.0.0.1:8787/internal/pair/new",
		"wss://[::1]:9000/ws?x=1":      "https://[::1]:9000/internal/pair/new",
		"ws://localhost:1/prefix/ws#f": "http://localhost:1/internal/pair/new",
	} {
		got, err := client.PairURLFor(in)
		if err != nil || got != want {
			t.Errorf("PairURLFor(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := client.PairURLFor("http://x/ws"); err == nil {
		t.Error("PairURLFor accepted an http URL")
	}
}
