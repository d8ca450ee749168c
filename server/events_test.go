package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// takeNotifications reads n notification frames in order.
func takeNotifications(t *testing.T, c *client.Conn, n int) []client.Frame {
	t.Helper()
	out := make([]client.Frame, 0, n)
	for len(out) < n {
		f, err := c.ExpectType(ctxT(t), lmp.TypeNotification)
		if err != nil {
			t.Fatalf("after %d of %d notifications: %v", len(out), n, err)
		}
		out = append(out, f)
	}
	return out
}

func textOf(t *testing.T, f client.Frame) string { return decode[lmp.Notification](t, f).Text }

// checkEnvelope checks E-1 and E-3 on the raw frame.
func checkEnvelope(t *testing.T, f client.Frame) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(f.Raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"v", "seq", "ts", "type", "task_id", "run_id", "event_id", "payload"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("frame lacks %s: %s", k, f.Raw)
		}
	}
	if f.V != 1 || f.EventID != lmp.EventID(f.Seq) || f.TS < 1e9 {
		t.Fatalf("envelope %s", f.Raw)
	}
}

func TestEnvelopeAndPerDeviceSeq(t *testing.T) { // E-1, E-2, E-3, M-1, note 2, note 3
	e := newEnv(t)
	a, _ := e.pair()
	e.notify(3, "before-b-")
	b, _ := e.pair()
	e.notify(2, "both-")

	fa := takeNotifications(t, a, 5)
	fb := takeNotifications(t, b, 2)
	for i, f := range fa {
		checkEnvelope(t, f)
		if f.Seq != int64(i+1) {
			t.Fatalf("device A frame %d has seq %d", i, f.Seq)
		}
	}
	for i, f := range fb {
		checkEnvelope(t, f)
		if f.Seq != int64(i+1) || textOf(t, f) != fmt.Sprintf("both-%d", i) {
			t.Fatalf("device B frame %d: seq %d %q", i, f.Seq, textOf(t, f))
		}
		if *f.TaskID != "task_n" || f.RunID != nil {
			t.Fatalf("task/run %s", f.Raw)
		}
	}
	// Connection-scoped frames carry the current seq without advancing it.
	_ = b.Send(ctxT(t), lmp.Ping{})
	pong, _ := expectType[lmp.Pong](t, b)
	checkEnvelope(t, pong)
	if pong.Seq != 2 {
		t.Fatalf("pong seq %d, want the current 2", pong.Seq)
	}
	e.notify(1, "next-")
	if f := takeNotifications(t, b, 1)[0]; f.Seq != 3 {
		t.Fatalf("next event seq %d, want 3", f.Seq)
	}
}

func TestReplayOfflineGap(t *testing.T) { // E-5, E-7, note 3
	e := newEnv(t)
	a, d := e.pair()
	e.notify(3, "x")
	takeNotifications(t, a, 3)
	a.Close()
	// Wait until the server has dropped the connection, so the next events
	// are produced while the device is offline.
	waitOnline(t, e, d.ID, 0)
	e.notify(4, "offline-")
	c, ok := e.connect(d, ptr(int64(3)))
	if ok.Truncated {
		t.Fatal("gap within the window reported truncated")
	}
	e.notify(1, "live-")
	got := takeNotifications(t, c, 5)
	for i, f := range got {
		want := fmt.Sprintf("offline-%d", i)
		if i == 4 {
			want = "live-0"
		}
		if f.Seq != int64(4+i) || textOf(t, f) != want {
			t.Fatalf("frame %d: seq %d %q, want seq %d %q", i, f.Seq, textOf(t, f), 4+i, want)
		}
	}
}

func TestReplayRacesLiveEvents(t *testing.T) { // E-5, E-7: nothing lost or doubled between replay and live
	e := newEnv(t)
	_, d := e.pair()
	e.notify(50, "pre-")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		e.notify(200, "during-")
	}()
	c, _ := e.connect(d, ptr(int64(10)))
	wg.Wait()
	got := takeNotifications(t, c, 240)
	for i, f := range got {
		if f.Seq != int64(11+i) {
			t.Fatalf("frame %d has seq %d, want %d (lost or duplicated)", i, f.Seq, 11+i)
		}
	}
	_ = c.Send(ctxT(t), lmp.Ping{})
	expectType[lmp.Pong](t, c)
	for _, f := range c.Pending() {
		if f.Type == lmp.TypeNotification {
			t.Fatalf("extra event after the last one: %s", f.Raw)
		}
	}
}

func TestReplayTruncated(t *testing.T) { // E-6
	e := newEnv(t, func(c *server.Config) { c.ReplayWindow = 8 })
	_, d := e.pair()
	e.notify(20, "n")
	c, ok := e.connect(d, ptr(int64(2)))
	if !ok.Truncated {
		t.Fatal("gap beyond the window not truncated")
	}
	got := takeNotifications(t, c, 8) // what the window still holds
	if got[0].Seq != 13 || got[7].Seq != 20 {
		t.Fatalf("truncated replay seqs %d..%d, want 13..20", got[0].Seq, got[7].Seq)
	}
	_, ok = e.connect(d, ptr(int64(12)))
	if ok.Truncated {
		t.Fatal("gap exactly the window's size reported truncated")
	}
	_, ok = e.connect(d, ptr(int64(99)))
	if !ok.Truncated {
		t.Fatal("last_seq beyond the current seq not truncated")
	}
}

func waitOnline(t *testing.T, e *env, id string, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var list server.DeviceList
		_, body := httpDo(t, "GET", e.hs.URL+server.PathDevices, nil)
		_ = json.Unmarshal(body, &list)
		for _, dv := range list.Devices {
			if dv.DeviceID == id && dv.Online == want {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("device %s never had %d connections: %s", id, want, body)
		}
		time.Sleep(5 * time.Millisecond) // polling the server's state
	}
}

func TestRestartKeepsDevicesAndSeq(t *testing.T) { // note 4
	dir := t.TempDir()
	e := newEnvIn(t, dir)
	a, d := e.pair()
	e.notify(5, "a")
	takeNotifications(t, a, 5)
	e.stop()

	e2 := newEnvIn(t, dir)
	c, ok := e2.connect(d, ptr(int64(5)))
	if ok.Truncated {
		t.Fatal("clean restart with nothing missed reported truncated")
	}
	e2.srv.Send(context.Background(), "", "after", nil)
	if f := takeNotifications(t, c, 1)[0]; f.Seq != 6 {
		t.Fatalf("seq after clean restart %d, want 6", f.Seq)
	}
	// The gap from before the restart is re-sent: savedreplay_test.go.
}

func TestSecondServerOnSameStoreFails(t *testing.T) {
	e := newEnv(t)
	_, err := server.New(server.Config{DataDir: e.dir, Hermes: e.hermes})
	if err == nil {
		t.Fatal("second server on a locked store started")
	}
}
