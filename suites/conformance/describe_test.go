package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/suites/match"
)

// A wait that ends without its frame says in one line what came instead and
// whether the connection stayed open, never a bare deadline (issue 10 §4).
func TestWaitFailureSaysWhatCameInstead(t *testing.T) {
	frames := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		for text := range frames {
			if text == "close" {
				ws.Close(4001, "bye")
				return
			}
			_ = ws.Write(r.Context(), websocket.MessageText, []byte(text))
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	defer close(frames)
	ctx := context.Background()
	cc, err := client.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &Conn{Conn: cc, Name: "device"}
	defer c.CloseNow()

	frames <- `{"v":1,"seq":3,"ts":1759123456.7,"type":"error","task_id":null,"run_id":null,"event_id":"e_3","payload":{"code":"binary_unsupported","message":"no","fatal":false}}`
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = c.Expect(wctx, match.ErrorCode("binary_frame"))
	got := err.Error()
	for _, want := range []string{
		`device: waiting for error binary_frame: got error{code:"binary_unsupported", fatal:false, message:"no"} after `,
		`; the connection stayed open`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "deadline") {
		t.Errorf("message %q names the deadline although a frame arrived", got)
	}

	wctx2, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel2()
	_, err = c.WaitClosed(wctx2)
	if got := err.Error(); !strings.Contains(got, "device: waiting for the server to close the connection: got error{") || !strings.HasSuffix(got, "; the connection stayed open") {
		t.Errorf("message of a close that did not come: %q", got)
	}

	frames <- "close"
	_, err = c.Expect(ctx, match.Type("pong"))
	if got := err.Error(); !strings.Contains(got, `the server closed the connection with 4001 "bye" after `) {
		t.Errorf("message after a close: %q", got)
	}
}
