package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// peakRSS is the process's high-water resident set (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// TestUnauthenticatedFrameBudget: 16 connections that have not
// authenticated send a first frame of about 1 MiB each, at once, to a real
// lmp-server process. Each is refused with hello_too_large and close 1009,
// and the server's peak resident memory grows by less than the frames'
// own size (before the budget it grew by some fifty times their size). A
// hello with a large unknown field within the budget still pairs (V-1).
func TestUnauthenticatedFrameBudget(t *testing.T) {
	addr := freeAddr(t)
	p := startServer(t, t.TempDir(), addr, "--no-qr")
	var b bytes.Buffer
	b.WriteString(`{"v":1,"type":"hello","payload":{"protocol_version":1,"token":"t","Pad":[0`)
	for b.Len() < lmp.MaxFrameBytes-16 {
		b.WriteString(",0")
	}
	b.WriteString("]}}")
	frame := b.Bytes()

	const conns = 16
	before := peakRSS(t, p.Cmd.Process.Pid)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() {
			c, err := client.Dial(ctxT(t), p.ws(), nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.CloseNow()
			if err := c.SendRaw(ctxT(t), websocket.MessageText, frame); err != nil {
				t.Errorf("conn %d: %v", i, err)
				return
			}
			f, err := c.ExpectType(ctxT(t), lmp.TypeError)
			if err != nil {
				t.Errorf("conn %d: expected an error frame: %v", i, err)
				return
			}
			e, err := lmp.DecodePayload[lmp.Error](f.Type, f.Payload)
			if err != nil || e.Code != lmp.CodeHelloTooLarge || !e.Fatal {
				t.Errorf("conn %d: expected a fatal %s, got %+v (%v)", i, lmp.CodeHelloTooLarge, e, err)
			}
			ce, err := c.WaitClosed(ctxT(t))
			if err != nil || ce.Code != lmp.CloseMessageTooBig {
				t.Errorf("conn %d: expected close 1009, got %v (%v)", i, ce, err)
			}
		})
	}
	wg.Wait()
	grew := peakRSS(t, p.Cmd.Process.Pid) - before
	if sent := int64(conns * len(frame)); grew >= sent {
		t.Errorf("the server's peak RSS grew by %d MiB for %d unauthenticated frames of %d KiB: expected less than the frames' own %d MiB", grew>>20, conns, len(frame)>>10, sent>>20)
	}
	t.Logf("peak RSS grew by %.1f MiB for %d MiB of unauthenticated frames", float64(grew)/(1<<20), conns*len(frame)>>20)

	// A hello within the budget, with an unknown field of 12 KiB, pairs.
	pr, err := client.Pair(ctxT(t), "http://"+addr+lmp.PathPairNew, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(ctxT(t), p.ws(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	hello := `{"v":1,"type":"hello","payload":{"protocol_version":1,"token":"` + pr.Token + `","device_info":{"model":"m","os":"o","app_version":"1"},"future_field":"` + strings.Repeat("x", 12<<10) + `"}}`
	if len(hello) > server.MaxHelloBytes {
		t.Fatalf("the test's hello is %d bytes, over the budget", len(hello))
	}
	if err := c.SendRaw(ctxT(t), websocket.MessageText, []byte(hello)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectType(ctxT(t), lmp.TypeHelloOK); err != nil {
		t.Fatalf("a hello within the budget: %v", err)
	}
}
