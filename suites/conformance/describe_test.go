package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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

	// The frame goes out once the wait has begun, and the wait ends once
	// the frame has arrived: the message must place it within the wait,
	// whatever the machine's speed.
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	waiting := &waitingContext{Context: wctx, began: make(chan struct{})}
	expectErr := make(chan error, 1)
	go func() {
		_, err := c.Expect(waiting, match.ErrorCode("binary_frame"))
		expectErr <- err
	}()
	<-waiting.began
	frames <- `{"v":1,"seq":3,"ts":1759123456.7,"type":"error","task_id":null,"run_id":null,"event_id":"e_3","payload":{"code":"binary_unsupported","message":"no","fatal":false}}`
	for len(c.Pending()) == 0 && wctx.Err() == nil {
		time.Sleep(time.Millisecond) // polling the inbox for the frame
	}
	cancel()
	got := (<-expectErr).Error()
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

	wctx2, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond) // the frame is in: only the close is awaited
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

// waitingContext closes began when a wait first asks for Done, which a
// wait does once it has noted when it began.
type waitingContext struct {
	context.Context
	once  sync.Once
	began chan struct{}
}

func (w *waitingContext) Done() <-chan struct{} {
	w.once.Do(func() { close(w.began) })
	return w.Context.Done()
}
