package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// setFileSizeLimit sets the soft RLIMIT_FSIZE of a running process with
// util-linux's prlimit: a write past it fails with EFBIG, as on a full
// disk; "unlimited" lifts it.
func setFileSizeLimit(t *testing.T, pid int, soft string) {
	t.Helper()
	out, err := exec.Command("prlimit", "--pid", strconv.Itoa(pid), "--fsize="+soft+":unlimited").CombinedOutput()
	if err != nil {
		t.Fatalf("prlimit --fsize=%s: %v: %s", soft, err, out)
	}
}

func health(t *testing.T, addr string) (int, server.Health) {
	t.Helper()
	resp, err := http.Get("http://" + addr + lmp.PathHealth)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var h server.Health
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatalf("/health %d: %q: %v", resp.StatusCode, raw, err)
	}
	return resp.StatusCode, h
}

// TestStoreThatRefusesWrites: a real lmp-server process whose store file
// can no longer grow (RLIMIT_FSIZE lowered under it: writes fail with
// EFBIG, as on a full disk) tells its device with a store_unavailable
// error, refuses session.send instead of acknowledging it, and answers
// /health 503 with the reason; once the limit is lifted the store is
// written again, /health is ok, and events resume with seq above every
// seq sent before: none repeats.
func TestStoreThatRefusesWrites(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit (util-linux) on PATH")
	}
	addr := freeAddr(t)
	p := startServer(t, t.TempDir(), addr, "--no-qr")
	_, c, _ := p.pairDevice(t)
	defer c.CloseNow()
	pid := p.Cmd.Process.Pid
	setFileSizeLimit(t, pid, "8192") // bbolt's two meta pages; every other page lies beyond
	t.Cleanup(func() { _ = exec.Command("prlimit", "--pid", strconv.Itoa(pid), "--fsize=unlimited").Run() })

	// 600 events: past half of the first reserved block of 1024 numbers,
	// the server writes the next mark, and the store refuses it.
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "/mock burst 600", RequestID: "burst"}); err != nil {
		t.Fatal(err)
	}
	// next takes frames until one matches, checking that every event's
	// seq is above all before it.
	var lastSeq int64
	events := 0
	next := func(match func(client.Frame) bool) (client.Frame, error) {
		for {
			f, err := c.Next(ctxT(t))
			if err != nil {
				return f, err
			}
			if f.Type == lmp.TypeNotification {
				if f.Seq <= lastSeq {
					t.Fatalf("seq %d after %d: repeated or out of order", f.Seq, lastSeq)
				}
				lastSeq = f.Seq
				events++
			}
			if match(f) {
				return f, nil
			}
		}
	}
	f, err := next(func(f client.Frame) bool { return f.Type == lmp.TypeError })
	if err != nil {
		t.Fatalf("expected a store_unavailable error while the store refuses writes: %v", err)
	}
	e, err := lmp.DecodePayload[lmp.Error](f.Type, f.Payload)
	if err != nil || e.Code != lmp.CodeStoreUnavailable || e.Fatal || !strings.Contains(e.Message, "file too large") {
		t.Fatalf("expected a non-fatal store_unavailable naming the cause, got %+v (%v)", e, err)
	}
	code, h := health(t, addr)
	if code != http.StatusServiceUnavailable || h.OK || h.V != 1 || !strings.Contains(h.Error, "file too large") || strings.Contains(h.Error, "lmp-server.db") {
		t.Fatalf("/health while the store fails: expected 503, ok false and the reason without the path, got %d %+v", code, h)
	}
	// A message now is refused, not acknowledged and then lost.
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "during", RequestID: "during"}); err != nil {
		t.Fatal(err)
	}
	f, err = next(func(f client.Frame) bool {
		return (f.Type == lmp.TypeAck || f.Type == lmp.TypeError) && strings.Contains(string(f.Payload), `"request_id":"during"`)
	})
	if err != nil || f.Type != lmp.TypeError || !strings.Contains(string(f.Payload), lmp.CodeStoreUnavailable) {
		t.Fatalf("session.send while the store fails: expected store_unavailable, got %s %s (%v)", f.Type, f.Payload, err)
	}

	// The disk has room again.
	setFileSizeLimit(t, pid, "unlimited")
	deadline := time.Now().Add(20 * time.Second)
	for code, h = health(t, addr); code != http.StatusOK; code, h = health(t, addr) {
		if time.Now().After(deadline) {
			t.Fatalf("/health after the store recovered: %d %+v\n%s", code, h, p.Stderr)
		}
		time.Sleep(50 * time.Millisecond) // polling the server's retries of the store
	}
	if err := c.Send(ctxT(t), lmp.SessionSend{Text: "/mock burst 3", RequestID: "after"}); err != nil {
		t.Fatal(err)
	}
	// The rest of the burst (up to the mark the store held) arrives
	// first; then the three events sent after the store recovered.
	_, err = next(func(f client.Frame) bool {
		return f.Type == lmp.TypeNotification && strings.Contains(string(f.Payload), "Burst notification 3 of 3")
	})
	var ce *client.CloseError
	if err != nil || errors.As(err, &ce) {
		t.Fatalf("events after the store recovered: %v\n%s", err, p.Stderr)
	}
	t.Logf("%d events, seq up to %d, none repeated", events, lastSeq)
	for _, line := range []string{"store refuses writes", "store takes writes again"} {
		if !strings.Contains(p.Stderr.String(), line) {
			t.Errorf("the log has no line %q", line)
		}
	}
	if n := strings.Count(p.Stderr.String(), "event dropped"); n > 1 {
		t.Errorf("%d log lines for dropped events: expected at most one per outage", n)
	}
}
