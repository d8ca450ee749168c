package server_test

import (
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

func fastHeartbeat(c *server.Config) {
	c.PingInterval = 40 * time.Millisecond
	c.PongTimeout = 30 * time.Millisecond
}

func TestHeartbeatClosesAfterThreeMisses(t *testing.T) { // T-4, T-5, note 8
	e := newEnv(t, fastHeartbeat)
	c, _ := e.pair(&client.Options{ManualPong: true})
	// Other traffic does not prove liveness (note 8).
	for i := 0; i < 3; i++ {
		_ = c.Send(ctxT(t), lmp.Ping{})
	}
	expectErrorClose(t, c, lmp.CodeHeartbeatTimeout, 1008)
	pings := 0
	for _, f := range c.Pending() {
		if f.Type == lmp.TypePing {
			pings++
		}
	}
	if pings != 3 {
		t.Fatalf("closed after %d pings, want 3 unanswered", pings)
	}
}

// tolerantHeartbeat leaves room for a loaded CI machine to answer.
func tolerantHeartbeat(c *server.Config) {
	c.PingInterval = 40 * time.Millisecond
	c.PongTimeout = 120 * time.Millisecond
}

func TestHeartbeatAnsweredStaysOpen(t *testing.T) { // T-5
	e := newEnv(t, tolerantHeartbeat)
	c, _ := e.pair() // answers every ping
	for i := 0; i < 6; i++ {
		if _, err := c.ExpectType(ctxT(t), lmp.TypePing); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
	}
	if ce := c.Closed(); ce != nil {
		t.Fatalf("answered connection closed: %v", ce)
	}
}

func TestHeartbeatMissesMustBeConsecutive(t *testing.T) { // T-5
	e := newEnv(t, tolerantHeartbeat)
	c, _ := e.pair(&client.Options{ManualPong: true})
	// Answer every other ping: never three misses in a row.
	for i := 0; i < 6; i++ {
		if _, err := c.ExpectType(ctxT(t), lmp.TypePing); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
		if i%2 == 1 {
			_ = c.Send(ctxT(t), lmp.Pong{})
		}
	}
	if ce := c.Closed(); ce != nil {
		t.Fatalf("closed though misses were never consecutive: %v", ce)
	}
}
