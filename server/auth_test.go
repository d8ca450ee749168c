package server_test

import (
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

func TestHealthExact(t *testing.T) { // T-2
	e := newEnv(t)
	resp, body := httpDo(t, "GET", e.hs.URL+lmp.PathHealth, nil)
	if resp.StatusCode != 200 || string(body) != `{"ok":true,"v":1}` {
		t.Fatalf("health: %d %q", resp.StatusCode, body)
	}
}

func TestPairAndReconnect(t *testing.T) { // P-2, P-3, P-7, P-8
	e := newEnv(t)
	pr := e.token(0)
	if pr.V != 1 || pr.URL != e.wsURL || pr.Name != "test-host" || pr.FP != "" || pr.Token == "" {
		t.Fatalf("QR payload %+v", pr.QRPayload)
	}
	if left := time.Until(lmp.TimeOf(pr.ExpiresAt)); left < 290*time.Second || left > 301*time.Second {
		t.Fatalf("default TTL: expires in %v, want ~300s", left)
	}
	c, d, ok, err := client.PairDevice(ctxT(t), e.wsURL, pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	raw, err := base64.RawURLEncoding.DecodeString(d.Credential)
	if err != nil || len(raw) != 32 {
		t.Fatalf("credential is not 32 URL-safe bytes: %d %v", len(raw), err)
	}
	if ok.ProtocolVersion != 1 || ok.ServerName != "test-host" || ok.Truncated || ok.ServerTime == 0 {
		t.Fatalf("hello.ok %+v", ok)
	}
	c2, ok2 := e.connect(d, ptr(int64(0)))
	if ok2.DeviceID != d.ID || ok2.Credential != nil {
		t.Fatalf("reconnect hello.ok %+v", ok2)
	}
	c2.Close()

	// Wrong credential and unknown device: fatal, 1008.
	bad, _ := client.Dial(ctxT(t), e.wsURL, nil)
	_ = bad.Send(ctxT(t), lmp.Hello{ProtocolVersion: 1, DeviceID: d.ID, Credential: d.Credential + "x"})
	expectErrorClose(t, bad, lmp.CodeInvalidCredential, 1008)
	unk, _ := client.Dial(ctxT(t), e.wsURL, nil)
	_ = unk.Send(ctxT(t), lmp.Hello{ProtocolVersion: 1, DeviceID: "dev_nope", Credential: d.Credential})
	expectErrorClose(t, unk, lmp.CodeInvalidCredential, 1008)
}

func TestTokenSingleUseUnderRace(t *testing.T) { // P-4
	e := newEnv(t)
	tok := e.token(0).Token
	const n = 16
	conns := make([]*client.Conn, n)
	for i := range conns {
		c, err := client.Dial(ctxT(t), e.wsURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		conns[i] = c
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, losses := 0, 0
	start := make(chan struct{})
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := c.Hello(ctxT(t), lmp.Hello{Token: tok})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				wins++
				return
			}
			if se, ok := err.(*client.ServerError); ok && se.Payload.Code == lmp.CodeInvalidToken && se.Payload.Fatal {
				losses++
			}
		}()
	}
	close(start)
	wg.Wait()
	if wins != 1 || losses != n-1 {
		t.Fatalf("%d simultaneous hellos: %d won, %d refused with invalid_token; want 1 and %d", n, wins, losses, n-1)
	}
}

func TestTokenExpires(t *testing.T) { // P-5
	e := newEnv(t)
	pr := e.token(200 * time.Millisecond)
	// The behaviour under test is the passing of the TTL itself.
	time.Sleep(time.Until(lmp.TimeOf(pr.ExpiresAt)) + 20*time.Millisecond)
	c, _ := client.Dial(ctxT(t), e.wsURL, nil)
	_ = c.Send(ctxT(t), lmp.Hello{ProtocolVersion: 1, Token: pr.Token})
	expectErrorClose(t, c, lmp.CodeInvalidToken, 1008)
}

func TestTokenWithIdentityRefusedAndNotConsumed(t *testing.T) { // P-6, note 9
	e := newEnv(t)
	_, d := e.pair()
	tok := e.token(0).Token
	c, _ := client.Dial(ctxT(t), e.wsURL, nil)
	_ = c.Send(ctxT(t), lmp.Hello{ProtocolVersion: 1, Token: tok, DeviceID: d.ID, Credential: d.Credential})
	expectErrorClose(t, c, lmp.CodeTokenWithIdentity, 1008)
	if _, _, _, err := client.PairDevice(ctxT(t), e.wsURL, tok, nil); err != nil {
		t.Fatalf("token refused with identity was consumed: %v", err)
	}
}

func TestFirstFrameMustBeHello(t *testing.T) { // F-2, note 10
	e := newEnv(t)
	c, _ := client.Dial(ctxT(t), e.wsURL, nil)
	_ = c.Send(ctxT(t), lmp.Ping{})
	expectErrorClose(t, c, lmp.CodeHelloRequired, 1002)
	c2, _ := client.Dial(ctxT(t), e.wsURL, nil)
	_ = c2.SendRaw(ctxT(t), websocket.MessageText, []byte("{not json"))
	expectErrorClose(t, c2, lmp.CodeHelloRequired, 1002)
}

func TestUnsupportedVersion(t *testing.T) { // V-2, note 11
	e := newEnv(t)
	c, _ := client.Dial(ctxT(t), e.wsURL, nil)
	_ = c.Send(ctxT(t), lmp.Hello{ProtocolVersion: 2, Token: e.token(0).Token})
	er := expectErrorClose(t, c, lmp.CodeUnsupportedVersion, 1002)
	if len(er.SupportedVersions) != 1 || er.SupportedVersions[0] != 1 {
		t.Fatalf("supported_versions %v", er.SupportedVersions)
	}
}

func TestAuthTimeout(t *testing.T) { // S-4
	e := newEnv(t, func(c *server.Config) { c.AuthTimeout = 150 * time.Millisecond })
	c, _ := client.Dial(ctxT(t), e.wsURL, nil)
	expectErrorClose(t, c, lmp.CodeAuthTimeout, 1008)
}

func TestBinaryFrame(t *testing.T) { // T-3, note 12
	e := newEnv(t)
	c, _ := e.pair()
	_ = c.SendRaw(ctxT(t), websocket.MessageBinary, []byte{1, 2, 3})
	expectErrorClose(t, c, lmp.CodeBinaryFrame, 1003)
	// The server keeps serving others.
	c2, _ := e.pair()
	_ = c2.Send(ctxT(t), lmp.Ping{})
	expectType[lmp.Pong](t, c2)
}

func TestOversizeFrame(t *testing.T) {
	e := newEnv(t)
	c, _ := e.pair()
	big := `{"v":1,"type":"session.send","payload":{"request_id":"r","text":"` + strings.Repeat("x", lmp.MaxFrameBytes) + `"}}`
	_ = c.SendRaw(ctxT(t), websocket.MessageText, []byte(big))
	ce, err := c.WaitClosed(ctxT(t))
	if err != nil || ce.Code != 1009 {
		t.Fatalf("closed %v %v, want 1009", ce, err)
	}
}

func TestAfterAuthErrorsAreNotFatal(t *testing.T) { // note 16, V-1
	e := newEnv(t)
	c, d := e.pair()
	_ = c.Send(ctxT(t), lmp.Hello{ProtocolVersion: 1, DeviceID: d.ID, Credential: d.Credential})
	if _, er := expectType[lmp.Error](t, c); er.Code != lmp.CodeAlreadyAuthenticated || er.Fatal {
		t.Fatalf("second hello: %+v", er)
	}
	_ = c.SendRaw(ctxT(t), websocket.MessageText, []byte("][")) // malformed
	if _, er := expectType[lmp.Error](t, c); er.Code != lmp.CodeBadFrame || er.Fatal {
		t.Fatalf("malformed: %+v", er)
	}
	_ = c.SendJSON(ctxT(t), map[string]any{"v": 1, "type": "approval.resolve", "payload": map[string]any{"approval_id": "a", "choice": "maybe", "request_id": "r1"}})
	if _, er := expectType[lmp.Error](t, c); er.Code != lmp.CodeInvalidPayload || er.Fatal || er.RequestID != "r1" {
		t.Fatalf("bad choice: %+v", er)
	}
	_ = c.SendJSON(ctxT(t), map[string]any{"v": 1, "type": "future.thing", "payload": map[string]any{}, "extra": 1})
	_ = c.Send(ctxT(t), lmp.Ping{})
	f, _ := expectType[lmp.Pong](t, c) // T-6; and the unknown type was ignored
	if pending := c.Pending(); len(pending) != 0 {
		t.Fatalf("unexpected frames: %v", pending)
	}
	if f.EventID != lmp.EventID(f.Seq) {
		t.Fatalf("pong envelope %+v", f.Frame)
	}
}
