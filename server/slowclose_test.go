//go:build unix

package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/server"
)

// stallUntilDropped connects a device over tiny socket buffers that reads
// nothing, so that its writer is stuck in a write, and publishes events
// until the server drops it as a slow consumer.
func stallUntilDropped(t *testing.T, e *env) (*websocket.Conn, string) {
	t.Helper()
	const chunk = 8
	fast, _ := e.pair()
	ws, ok := dialTinyBuffer(t, e, lmp.Hello{ProtocolVersion: 1, Token: e.token(0).Token})
	big := strings.Repeat("z", 16<<10)
	for published := 0; !strings.Contains(e.logs.String(), "slow consumer"); published += chunk {
		if published > 1000 {
			t.Fatal("the stalled device was never disconnected")
		}
		for range chunk {
			e.srv.Send(context.Background(), "", big, nil)
		}
		takeNotifications(t, fast, chunk)
	}
	return ws, ok.DeviceID
}

// TestSlowConsumerThatResumesGetsTheClose: a dropped slow consumer whose
// writer is stuck behind it still gets the slow_consumer error and close
// 1013 when it reads again, here after a pause longer than the 2 s after
// which the close attempt used to be abandoned for a bare TCP EOF.
func TestSlowConsumerThatResumesGetsTheClose(t *testing.T) { // slow consumers
	e := newEnv(t, func(c *server.Config) { c.ReplayWindow = 16 })
	ws, _ := stallUntilDropped(t, e)
	time.Sleep(3 * time.Second) // the peer is slow: it reads again 3 s later
	gotError := false
	for {
		_, raw, err := ws.Read(ctxT(t))
		if err != nil {
			if ce := (websocket.CloseError{}); !errors.As(err, &ce) || ce.Code != lmp.CloseTryAgainLater {
				t.Fatalf("dropped slow consumer: %v, want close 1013", err)
			}
			break
		}
		var f rawFrame
		_ = json.Unmarshal(raw, &f)
		if f.Type == lmp.TypeError {
			var er lmp.Error
			_ = json.Unmarshal(f.Payload, &er)
			gotError = er.Code == lmp.CodeSlowConsumer && er.Fatal
		}
	}
	if !gotError {
		t.Fatal("no fatal slow_consumer error before the close")
	}
}

// TestStalledConsumerIsClosedWithinABound: a dropped consumer that never
// reads again is disconnected all the same: its stuck writer does not keep
// the connection open.
func TestStalledConsumerIsClosedWithinABound(t *testing.T) { // slow consumers
	e := newEnv(t, func(c *server.Config) { c.ReplayWindow = 16 })
	ws, id := stallUntilDropped(t, e)
	ended := func() bool {
		for _, line := range strings.Split(e.logs.String(), "\n") {
			// The handler's last line names the device (server/connlog.go).
			if strings.Contains(line, id) && (strings.Contains(line, "connection ended") || strings.Contains(line, "device disconnected")) {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard, far above the bound
	for !ended() {
		if time.Now().After(deadline) {
			t.Fatal("the stalled connection is still open")
		}
		time.Sleep(20 * time.Millisecond) // polling the log for the handler's end
	}
	// What the kernel still holds can be read; then the connection is over.
	for {
		if _, _, err := ws.Read(ctxT(t)); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatal("the connection is still open after the server ended it")
			}
			break
		}
	}
}

// TestReaderThatKeepsUpIsNeverDropped: at /mock burst's default pacing a
// device that reads as it can on loopback gets every notification in
// order and is never dropped as a slow consumer.
func TestReaderThatKeepsUpIsNeverDropped(t *testing.T) { // slow consumers
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inst, err := reference.Start(ctx, reference.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(context.Background())
	pr, err := client.Pair(ctx, inst.PairURL, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _, _, err := client.PairDevice(ctx, inst.WSURL, pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	const n = 3000
	if err := c.Send(ctx, lmp.SessionSend{Text: "/mock burst 3000", RequestID: "burst"}); err != nil {
		t.Fatal(err)
	}
	var last int64
	for got := 0; got < n; got++ {
		f, err := c.ExpectType(ctx, lmp.TypeNotification)
		if err != nil {
			t.Fatalf("after %d of %d notifications: %v", got, n, err)
		}
		if last > 0 && f.Seq != last+1 {
			t.Fatalf("seq %d after %d", f.Seq, last)
		}
		last = f.Seq
	}
	if ce := c.Closed(); ce != nil {
		t.Fatalf("closed during the burst: %v", ce)
	}
}
