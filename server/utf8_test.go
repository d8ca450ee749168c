package server_test

import (
	"testing"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// TestInvalidUTF8ClosesWith1007: a text frame holds UTF-8 (T-3); one that
// does not fails the connection with 1007 (RFC 6455 §8.1), before hello
// and after it, and a hello carrying such bytes pairs nothing.
func TestInvalidUTF8ClosesWith1007(t *testing.T) {
	e := newEnv(t)
	t.Run("before hello", func(t *testing.T) {
		c, err := client.Dial(ctxT(t), e.wsURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		hello := `{"v":1,"type":"hello","payload":{"protocol_version":1,"token":"` + e.token(0).Token +
			`","device_info":{"model":"` + "\xff\xfe" + `","os":"Android 16","app_version":"1.0"}}}`
		if err := c.SendRaw(ctxT(t), websocket.MessageText, []byte(hello)); err != nil {
			t.Fatal(err)
		}
		expectErrorClose(t, c, lmp.CodeInvalidUTF8, lmp.CloseInvalidData)
		var list server.DeviceList
		resp, body := httpDo(t, "GET", e.hs.URL+server.PathDevices, nil)
		if err := jsonUnmarshal(body, &list); err != nil || resp.StatusCode != 200 || len(list.Devices) != 0 {
			t.Fatalf("a hello with invalid UTF-8 paired a device: %s", body)
		}
	})
	t.Run("after hello", func(t *testing.T) {
		c, _ := e.pair()
		if err := c.SendRaw(ctxT(t), websocket.MessageText, []byte(`{"v":1,"type":"ping","payload":{"x":"`+"\xc3\x28"+`"}}`)); err != nil {
			t.Fatal(err)
		}
		expectErrorClose(t, c, lmp.CodeInvalidUTF8, lmp.CloseInvalidData)
	})
}
