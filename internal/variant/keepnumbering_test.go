package variant

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// With KeepNumbering the upstream's numbering reaches the client as sent,
// faults included (a seq that goes back, a wrong event_id), and a hello's
// last_seq reaches the upstream untranslated; payloads are still stripped
// to §4's fields.
func TestKeepNumberingPassesTheUpstreamsNumbers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sent := []string{
		`{"v":1,"seq":7,"ts":1.5,"type":"hello.ok","task_id":null,"run_id":null,"event_id":"e_7","payload":{"device_id":"d1","server_time":1.5,"truncated":false,"build":"x"}}`,
		`{"v":1,"seq":5,"ts":1.6,"type":"notification","task_id":null,"run_id":null,"event_id":"evt-5","payload":{"title":"t","body":"b","level":"info"}}`,
	}
	gotHello := make(chan map[string]any, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var hello map[string]any
		_ = json.Unmarshal(data, &hello)
		gotHello <- hello
		for _, f := range sent {
			if c.Write(ctx, websocket.MessageText, []byte(f)) != nil {
				return
			}
		}
		_, _, _ = c.Read(ctx)
	}))
	defer upstream.Close()

	if _, err := Start(Options{Upstream: upstream.URL, StateFile: filepath.Join(t.TempDir(), "v.json"),
		Choices: Choices{Minimal: true, Alt: map[int]bool{2: true}}, KeepNumbering: true}); err == nil {
		t.Error("Start kept the upstream's numbering with note 2 on, which numbers frames of its own")
	}
	p, err := Start(Options{Upstream: upstream.URL, StateFile: filepath.Join(t.TempDir(), "v.json"),
		Choices: Choices{Minimal: true}, KeepNumbering: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	c, _, err := websocket.Dial(ctx, p.WSURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	hello := `{"v":1,"type":"hello","payload":{"device_id":"d1","credential":"c","last_seq":42,"protocol_version":1}}`
	if err := c.Write(ctx, websocket.MessageText, []byte(hello)); err != nil {
		t.Fatal(err)
	}
	if h := <-gotHello; h["payload"].(map[string]any)["last_seq"] != 42.0 {
		t.Errorf("the upstream got last_seq %v, want 42 as the client sent it", h["payload"].(map[string]any)["last_seq"])
	}
	for _, want := range []struct {
		seq     float64
		eventID string
	}{{7, "e_7"}, {5, "evt-5"}} {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var f map[string]any
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		if f["seq"] != want.seq || f["event_id"] != want.eventID {
			t.Errorf("frame %s: seq %v, event_id %v; want the upstream's %v, %q", f["type"], f["seq"], f["event_id"], want.seq, want.eventID)
		}
		if f["type"] == lmp.TypeHelloOK {
			if _, ok := f["payload"].(map[string]any)["build"]; ok {
				t.Errorf("hello.ok kept build, which §4 does not define: %s", data)
			}
		}
	}
}
