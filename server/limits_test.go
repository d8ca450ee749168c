package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/server"
)

// expectInvalid sends raw and waits for the non-fatal invalid_payload error
// naming want (the field and its limit), which must not echo the value.
func expectInvalid(t *testing.T, c *client.Conn, raw string, want ...string) {
	t.Helper()
	if err := c.SendRaw(ctxT(t), websocket.MessageText, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	f, e := expectType[lmp.Error](t, c)
	if e.Code != lmp.CodeInvalidPayload || e.Fatal {
		t.Fatalf("error %+v, want non-fatal invalid_payload", e)
	}
	for _, w := range want {
		if !strings.Contains(e.Message, w) {
			t.Errorf("error message %q does not name %q", e.Message, w)
		}
	}
	if len(f.Raw) > 1024 {
		t.Errorf("the refusal is %d bytes: it echoes the value", len(f.Raw))
	}
}

func TestClientStringsOverTheirLimitsAreRefused(t *testing.T) {
	e := newEnv(t)
	c, _ := e.pair()
	long := func(n int, s string) string { return strings.Repeat(s, n) }
	for _, tc := range []struct {
		name, frame string
		want        []string
	}{
		{"task_id of 400,000 characters", fmt.Sprintf(`{"v":1,"type":"session.send","payload":{"task_id":%q,"text":"hi","request_id":"r1"}}`, long(400000, "x")), []string{"/payload/task_id", "128"}},
		{"request_id", fmt.Sprintf(`{"v":1,"type":"session.send","payload":{"text":"hi","request_id":%q}}`, long(129, "r")), []string{"/payload/request_id", "128"}},
		{"text", fmt.Sprintf(`{"v":1,"type":"session.send","payload":{"text":%q,"request_id":"r2"}}`, long(lmp.MaxTextLength+1, "t")), []string{"/payload/text", "65536"}},
		{"run_id", fmt.Sprintf(`{"v":1,"type":"run.cancel","payload":{"run_id":%q}}`, long(129, "u")), []string{"/payload/run_id", "128"}},
		{"approval_id", fmt.Sprintf(`{"v":1,"type":"approval.resolve","payload":{"approval_id":%q,"choice":"once","request_id":"r3"}}`, long(129, "a")), []string{"/payload/approval_id", "128"}},
		{"reason", fmt.Sprintf(`{"v":1,"type":"approval.resolve","payload":{"approval_id":"apr_1","choice":"deny","reason":%q,"request_id":"r4"}}`, long(lmp.MaxTextLength+1, "n")), []string{"/payload/reason", "65536"}},
		// U+2028 is six bytes escaped: 129 of them made a 1 MB task.list.result.
		{"request_id of U+2028", `{"v":1,"type":"task.list","payload":{"request_id":"` + long(129, `\u2028`) + `"}}`, []string{"/payload/request_id", "128"}},
	} {
		t.Run(tc.name, func(t *testing.T) { expectInvalid(t, c, tc.frame, append(tc.want, "characters")...) })
	}
	if n := len(e.hermes.callsNamed("handle_message")); n != 0 {
		t.Fatalf("%d over-long session.send reached Hermes", n)
	}
	// The connection is still served.
	if err := c.Send(ctxT(t), lmp.Ping{}); err != nil {
		t.Fatal(err)
	}
	expectType[lmp.Pong](t, c)
}

func TestHelloDeviceInfoOverItsLimitIsRefused(t *testing.T) {
	e := newEnv(t)
	for _, field := range []string{"model", "os", "app_version"} {
		t.Run(field, func(t *testing.T) {
			info := map[string]string{"model": "Pixel 9", "os": "Android 16", "app_version": "1.0"}
			info[field] = strings.Repeat("m", 4_000) // stored, logged and listed verbatim before; within the hello budget (MaxHelloBytes)
			c, err := client.Dial(ctxT(t), e.wsURL, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			tok := e.token(0).Token
			if err := c.SendJSON(ctxT(t), map[string]any{"v": 1, "type": "hello", "payload": map[string]any{
				"protocol_version": 1, "token": tok, "device_info": info}}); err != nil {
				t.Fatal(err)
			}
			er := expectErrorClose(t, c, lmp.CodeInvalidPayload, lmp.CloseProtocolError)
			if !strings.Contains(er.Message, "device_info."+field) || !strings.Contains(er.Message, "128") {
				t.Fatalf("refusal %q does not name device_info.%s and its limit", er.Message, field)
			}
		})
	}
	_, body := httpDo(t, "GET", e.hs.URL+server.PathDevices, nil)
	if len(body) > 1024 || strings.Contains(string(body), "mmmm") {
		t.Fatalf("a refused hello was stored: %.200s", body)
	}
	if strings.Contains(e.logs.String(), strings.Repeat("m", 100)) {
		t.Fatal("the log quotes a client string unshortened")
	}
}

func TestLogsQuoteClientStringsShortened(t *testing.T) {
	e := newEnv(t)
	c, _ := e.pair()
	typ := strings.Repeat("z", 100_000)
	if err := c.SendRaw(ctxT(t), websocket.MessageText, []byte(`{"v":1,"type":"`+typ+`","payload":{}}`)); err != nil {
		t.Fatal(err)
	}
	// The unknown type is ignored (V-1); a ping behind it proves it was read.
	if err := c.Send(ctxT(t), lmp.Ping{}); err != nil {
		t.Fatal(err)
	}
	expectType[lmp.Pong](t, c)
	logs := e.logs.String()
	if !strings.Contains(logs, "ignoring unknown frame type") {
		t.Fatalf("no log line for the unknown type:\n%.2000s", logs)
	}
	if strings.Contains(logs, typ[:65]) {
		t.Fatal("the log quotes the client's type unshortened")
	}
}

// frameSizes fails the test for every frame c received over the frame limit.
func frameSizes(t *testing.T, who string, c *client.Conn) {
	t.Helper()
	for _, en := range c.Transcript().Entries() {
		if en.Dir == client.DirReceived && len(en.Data) > lmp.MaxFrameBytes {
			t.Errorf("%s received a frame of %d bytes, over the %d-byte frame limit: %.120s", who, len(en.Data), lmp.MaxFrameBytes, en.Data)
		}
	}
}

// TestNoServerFrameOverTheFrameLimit: client strings at their limits, made
// of the characters JSON escapes to six bytes, and Hermes text far over the
// limit, against the reference server with the mock Hermes (which echoes
// the message in its reply): no frame to any device is larger than
// lmp.MaxFrameBytes, live or replayed.
func TestNoServerFrameOverTheFrameLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inst, err := reference.Start(ctx, reference.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(context.Background())
	pair := func() (*client.Conn, client.Device) {
		pr, err := client.Pair(ctx, inst.PairURL, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, d, _, err := client.PairDevice(ctx, inst.WSURL, pr.Token, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		return c, d
	}
	mon, _ := pair()
	c, _ := pair()

	worst := func(n int) string { return strings.Repeat("\u2028", n) }
	task, req := worst(lmp.MaxIDLength), strings.Repeat("<", lmp.MaxIDLength)
	// The mock answers an unknown /mock command by quoting it: text at its
	// limit, of a character JSON escapes to six bytes, comes back whole.
	text := "/mock " + strings.Repeat("<", lmp.MaxTextLength-len("/mock "))
	if err := c.Send(ctx, lmp.SessionSend{TaskID: &task, Text: text, RequestID: req}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctx, lmp.TypeAck); err != nil {
		t.Fatalf("no ack: %v\n%s", err, c.Transcript())
	}
	f, err := mon.ExpectType(ctx, lmp.TypeNotification)
	if err != nil {
		t.Fatalf("no notification: %v", err)
	}
	if len(f.Raw) < 6*lmp.MaxTextLength-1024 {
		t.Fatalf("the echo is %d bytes: not the worst case this test is meant to build", len(f.Raw))
	}
	if err := c.Send(ctx, lmp.TaskList{RequestID: worst(lmp.MaxIDLength)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctx, lmp.TypeTaskListResult); err != nil {
		t.Fatal(err)
	}
	// Over the limits, as the attacks found them: a 400,000-character
	// task_id (a 1.2 MB run.started to every device, an 800 KB ack) and a
	// request_id of 170,000 U+2028 (a 1 MB task.list.result). Refused now.
	huge := strings.Repeat("x", 400_000)
	if err := c.Send(ctx, lmp.SessionSend{TaskID: &huge, Text: "hello", RequestID: "r_huge"}); err != nil {
		t.Fatal(err)
	}
	if err := c.SendRaw(ctx, websocket.MessageText, []byte(`{"v":1,"type":"task.list","payload":{"request_id":"`+strings.Repeat(`\u2028`, 170_000)+`"}}`)); err != nil {
		t.Fatal(err)
	}
	// A notification behind them: every frame they caused has arrived.
	if _, err := driver.New(inst.DriverURL, nil).Send(ctx, driver.SendRequest{ChatID: "task_end", Content: "sentinel"}); err != nil {
		t.Fatal(err)
	}
	if _, err := mon.Expect(ctx, func(f client.Frame) bool { return strings.Contains(string(f.Raw), "sentinel") }); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ctx, lmp.Ping{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctx, lmp.TypePong); err != nil {
		t.Fatal(err)
	}
	frameSizes(t, "the sender", c)
	frameSizes(t, "the monitor", mon)
}

// TestHermesTextOverTheFrameLimitIsShortened: Hermes' own strings are not
// bounded; an event that would not fit is shortened, with a mark, live and
// in the replay buffer, instead of cutting every phone off at every
// reconnect.
func TestHermesTextOverTheFrameLimitIsShortened(t *testing.T) {
	e := newEnv(t)
	mon, d := e.pair(&client.Options{ReadLimit: lmp.MaxFrameBytes}) // a phone's read limit
	worst := func(n int) string { return strings.Repeat("\u2028", n) }
	e.srv.Send(context.Background(), "task_big", worst(200_000), map[string]any{"title": worst(100_000)})
	e.notify(1, "after")
	_, n := expectType[lmp.Notification](t, mon)
	if !strings.HasPrefix(n.Text, "\u2028") || !strings.HasSuffix(n.Text+n.Title, "[cut: over the frame limit]") {
		t.Fatalf("notification not shortened with a mark: %.40q… / %.40q…", n.Text, n.Title)
	}
	if _, n := expectType[lmp.Notification](t, mon); n.Text != "after0" {
		t.Fatalf("next notification %q", n.Text)
	}
	again, _ := e.connect(d, ptr(int64(0)))
	if _, n := expectType[lmp.Notification](t, again); !strings.Contains(n.Text+n.Title, "[cut: over the frame limit]") {
		t.Fatal("the replayed event is not the shortened one")
	}
	frameSizes(t, "the monitor", mon)
	frameSizes(t, "the reconnected monitor", again)
}
