package campaign

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestEpisodeWaitsForEveryAnswer plays an episode whose ping is answered
// late, by a server that answers in order (T-6) but only once it has read
// the frame after the first sentinel. The pong of the episode's ping then
// arrives after the steps are written; taken for the sentinel's, it would
// end the connection before the answer to the last step, and a finding in
// that answer would be lost (the flaky shrink of a task.list leak).
func TestEpisodeWaitsForEveryAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx := r.Context()
		var held [][]byte // answers not yet sent, in order
		pings := 0
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return
			}
			if frameTypeOf(data) == lmp.TypePing {
				pings++
				held = append(held, mustFrame(0, lmp.Pong{}))
			} else {
				held = append(held, mustFrame(0, lmp.Error{Code: lmp.CodeUnknownTask, Message: "no tasks"}))
			}
			switch {
			case pings < 2:
				continue // hold everything until the first sentinel is read
			case pings == 2:
				if err := ws.Write(ctx, websocket.MessageText, held[0]); err != nil {
					return
				}
				held = held[1:]
				continue // the rest after one more frame
			}
			for _, h := range held {
				if err := ws.Write(ctx, websocket.MessageText, h); err != nil {
					return
				}
			}
			held = nil
		}
	}))
	defer srv.Close()
	ep := Episode{Kind: "test", Steps: []Step{
		{Op: OpText, Data: []byte(`{"v":1,"type":"ping","payload":{}}`)},
		{Op: OpText, Data: []byte(`{"v":1,"type":"task.list","payload":{"request_id":"r1"}}`)},
	}}
	o := &connOracle{secrets: newSecretSet(), authed: true}
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	res := runEpisode(context.Background(), url, srv.Client(), ep, func(b []byte) []byte { return b }, o, campaignTimings, false)
	if !o.responses["error:"+lmp.CodeUnknownTask] {
		t.Fatalf("the answer to the last step was not read: %+v, responses %v", res, o.responses)
	}
}
