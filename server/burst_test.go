//go:build unix

package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// A server ping does not wait behind a burst of events, and its pong
// timeout runs from its write: a phone on a slow link that answers every
// ping as soon as it reads it is not dropped while it works through a
// burst that takes it longer than three pong timeouts (T-4, T-5).
func TestPingsOvertakeABurst(t *testing.T) {
	const burst = 300
	e := newEnv(t, func(c *server.Config) {
		c.PingInterval = 50 * time.Millisecond
		c.PongTimeout = 500 * time.Millisecond
	})
	ws, _ := dialTinyBuffer(t, e, lmp.Hello{ProtocolVersion: 1, Token: e.token(0).Token})
	e.notify(burst, strings.Repeat("x", 2000)+" ") // published at once; the writer blocks on the tiny socket
	pong, _ := lmp.NewClientFrame(lmp.Pong{})
	notes, pingsWithin := 0, 0
	for notes < burst {
		f := readRaw(t, ws)
		switch f.Type {
		case lmp.TypePing:
			pingsWithin++
			if err := ws.Write(ctxT(t), websocket.MessageText, mustJSON(pong)); err != nil {
				t.Fatal(err)
			}
		case lmp.TypeNotification:
			notes++
			// A slow link: reading the burst takes about 1.8 s, more than
			// the three pong timeouts (1.5 s) after which a ping queued
			// behind it would have cost the connection.
			time.Sleep(6 * time.Millisecond)
		default:
			t.Fatalf("after %d of %d notifications: %s %s", notes, burst, f.Type, f.Payload)
		}
	}
	if pingsWithin == 0 {
		t.Fatalf("no ping came while the device read a burst of %d events for more than a second: pings waited behind the events", burst)
	}
}
