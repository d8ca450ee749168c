package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// TestObservedEnvelopeIsTheFrames: for every frame the server writes
// (scoped replies, events, a fatal error) the Envelope it hands the
// observer is what encoding/json reads from the frame itself; a client
// frame it reads after hello comes with its type and payload, and a first
// frame with none.
func TestObservedEnvelopeIsTheFrames(t *testing.T) {
	var (
		mu       sync.Mutex
		problems []string
		types    = map[string]bool{}
		// readGiven holds the types of the frames read with an envelope;
		// readBare counts those read without one.
		readGiven = map[string]bool{}
		readBare  int
	)
	observe := func(of server.ObservedFrame) {
		mu.Lock()
		defer mu.Unlock()
		w := of.Envelope
		if !of.Sent {
			// A client frame of an authenticated connection comes with
			// its type and payload; the first frame (a hello, or not) with
			// none.
			var f lmp.ClientFrame
			if w.Seq != 0 || w.TaskID != nil || w.RunID != nil {
				problems = append(problems, fmt.Sprintf("read frame with more than type and payload %+v: %s", w, of.Data))
			} else if w.Type == "" {
				if w.Payload != nil {
					problems = append(problems, fmt.Sprintf("read frame with a payload but no type %+v: %s", w, of.Data))
				}
				readBare++
			} else if err := json.Unmarshal(of.Data, &f); err != nil || f.Type != w.Type || !bytes.Equal(f.Payload, w.Payload) {
				problems = append(problems, fmt.Sprintf("read envelope type %q payload %s\nfor frame %s", w.Type, w.Payload, of.Data))
			} else {
				readGiven[w.Type] = true
			}
			return
		}
		var f struct {
			Type    string
			Seq     int64
			TaskID  *string `json:"task_id"`
			RunID   *string `json:"run_id"`
			Payload json.RawMessage
		}
		if err := json.Unmarshal(of.Data, &f); err != nil {
			problems = append(problems, fmt.Sprintf("%v: %s", err, of.Data))
			return
		}
		if f.Type != w.Type || f.Seq != w.Seq || lmp.Deref(f.TaskID) != lmp.Deref(w.TaskID) || (f.TaskID == nil) != (w.TaskID == nil) ||
			lmp.Deref(f.RunID) != lmp.Deref(w.RunID) || (f.RunID == nil) != (w.RunID == nil) || !bytes.Equal(f.Payload, w.Payload) {
			problems = append(problems, fmt.Sprintf("envelope type %q seq %d task_id %v run_id %v payload %s\nfor frame %s", w.Type, w.Seq, w.TaskID, w.RunID, w.Payload, of.Data))
		}
		types[w.Type] = true
	}
	e, c, h := newChatTurn(t, "s_obs", "t_obs", func(cfg *server.Config) { cfg.Observer = observe })
	h.start(1)
	h.delta(1, "half <an> answer & more")
	h.end(1, "half <an> answer & more", nil)
	h.reply("half <an> answer & more")
	runFrames(t, c, "run_t_obs")
	if err := c.Send(ctxT(t), lmp.TaskList{RequestID: "tl"}); err != nil {
		t.Fatal(err)
	}
	expectType[lmp.TaskListResult](t, c)
	if err := c.Send(ctxT(t), lmp.Ping{}); err != nil {
		t.Fatal(err)
	}
	expectType[lmp.Pong](t, c)
	if err := c.Send(ctxT(t), lmp.RunCancel{}); err != nil { // run_id missing: a non-fatal error
		t.Fatal(err)
	}
	expectType[lmp.Error](t, c)

	// A first frame that is no hello: a fatal error, written by another path.
	ws, _, err := websocket.Dial(ctxT(t), e.wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if err := ws.Write(ctxT(t), websocket.MessageText, []byte(`{"v":1,"type":"ping","payload":{}}`)); err != nil {
		t.Fatal(err)
	}
	if _, data, err := ws.Read(ctxT(t)); err != nil || !bytes.Contains(data, []byte(`"fatal":true`)) {
		t.Fatalf("first frame not hello: %s, %v", data, err)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	for _, typ := range []string{lmp.TypeSessionSend, lmp.TypeTaskList, lmp.TypePing, lmp.TypeRunCancel} {
		if !readGiven[typ] {
			t.Errorf("no %s frame read with its envelope: %v", typ, readGiven)
		}
	}
	if readBare < 2 {
		t.Errorf("%d frames read without an envelope, want the two first frames at least", readBare)
	}
	for _, typ := range []string{lmp.TypeHelloOK, lmp.TypeAck, lmp.TypeRunStarted, lmp.TypeRunDelta, lmp.TypeRunCompleted, lmp.TypeTaskListResult, lmp.TypePong, lmp.TypeError} {
		if !types[typ] {
			t.Errorf("no %s frame observed: %v", typ, types)
		}
	}
}
