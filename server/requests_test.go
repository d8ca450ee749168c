package server_test

import (
	"testing"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// A request waiting on Hermes holds back the connection's later requests,
// in order, but never its pongs: a live phone is not dropped for a slow
// gateway (T-5, note 8).
func TestSlowHermesCallKeepsPongsOnTime(t *testing.T) {
	e := newEnv(t, tolerantHeartbeat) // three misses close within about 0.4 s
	c, _ := e.pair()                  // answers every ping
	release := e.hermes.holdMessages()
	defer release()
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "slow", RequestID: "rq-slow"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ctxT(t), lmp.TaskList{RequestID: "rq-list"}); err != nil {
		t.Fatal(err)
	}
	// Six pings are more than three misses' worth of heartbeat while
	// handle_message is held, each answered at once by the client.
	for i := 0; i < 6; i++ {
		if _, err := c.ExpectType(ctxT(t), lmp.TypePing); err != nil {
			t.Fatalf("ping %d while handle_message is held: %v", i, err)
		}
	}
	if ce := c.Closed(); ce != nil {
		t.Fatalf("a connection whose pongs came on time was closed while its request waited on Hermes: %v", ce)
	}
	for _, f := range c.Pending() {
		if f.Type == lmp.TypeAck || f.Type == lmp.TypeTaskListResult {
			t.Fatalf("%s before handle_message returned", f.Type)
		}
	}
	release()
	isReply := func(f client.Frame) bool { return f.Type == lmp.TypeAck || f.Type == lmp.TypeTaskListResult }
	first, err := c.Expect(ctxT(t), isReply)
	if err != nil {
		t.Fatal(err)
	}
	if first.Type != lmp.TypeAck {
		t.Fatalf("first reply after handle_message returned: %s, want the held session.send's ack before the later task.list's result", first.Type)
	}
	if _, err := c.ExpectType(ctxT(t), lmp.TypeTaskListResult); err != nil {
		t.Fatal(err)
	}
}
