//go:build unix

package server_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

func TestSlowConsumerIsDisconnected(t *testing.T) { // slow consumers
	e := newEnv(t, func(c *server.Config) { c.SendQueue = 16 })
	fast, _ := e.pair()
	tok := e.token(0).Token
	// A tiny receive buffer makes the device fall behind quickly.
	dialer := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	ws, _, err := websocket.Dial(ctxT(t), e.wsURL, &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	hello, _ := lmp.NewClientFrame(lmp.Hello{ProtocolVersion: 1, Token: tok})
	_ = ws.Write(ctxT(t), websocket.MessageText, mustJSON(hello))
	_, raw, err := ws.Read(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var ok struct{ Payload lmp.HelloOK }
	_ = json.Unmarshal(raw, &ok)
	slowID := ok.Payload.DeviceID
	// From here the slow device reads nothing.
	big := strings.Repeat("z", 16<<10)
	const n, chunk = 200, 8
	for i := 0; i < n; i += chunk {
		// The broadcaster never blocks on the slow device: each chunk is
		// published at once, and the device that reads gets all of it.
		for j := 0; j < chunk; j++ {
			e.srv.Send(context.Background(), "", big, nil)
		}
		if got := takeNotifications(t, fast, chunk); got[chunk-1].Seq != int64(i+chunk) {
			t.Fatalf("fast device: seq %d after %d events", got[chunk-1].Seq, i+chunk)
		}
	}
	waitOnline(t, e, slowID, 0)
	if !strings.Contains(e.logs.String(), "slow consumer") {
		t.Fatal("no slow-consumer disconnect logged")
	}
	// Its events wait in the replay buffer.
	cred := *ok.Payload.Credential
	c, hok := e.connect(client.Device{ID: slowID, Credential: cred}, ptr(int64(0)))
	if hok.Truncated {
		t.Fatal("slow device's gap truncated")
	}
	if got := takeNotifications(t, c, n); got[0].Seq != 1 || got[n-1].Seq != n {
		t.Fatal("replay after slow disconnect incomplete")
	}
}
