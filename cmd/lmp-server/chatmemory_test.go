package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestLongChatMemory: a phone sends 80 messages of 60,000 characters into
// one chat of a real lmp-server process. Each turn's pre_llm_call carries
// the chat's whole conversation_history; the mock Hermes deep-copied it
// for every turn and kept each copy in its hook log, so memory grew with
// the square of the chat's length (gigabytes within a minute of a longer
// chat). Now the history is passed by reference and the recordings are
// bounded in bytes: the server's peak resident memory grows by less than
// 64 MiB for the 4.6 MiB of text.
func TestLongChatMemory(t *testing.T) {
	addr := freeAddr(t)
	p := startServer(t, t.TempDir(), addr, "--no-qr", "--hermes-crosstalk=false")
	_, c, _ := p.pairDevice(t)
	defer c.CloseNow()
	before := peakRSS(t, p.Cmd.Process.Pid)
	const turns = 80
	text := strings.Repeat("long message ", 60_000/13)
	var task *string
	for i := range turns {
		id := "m" + strconv.Itoa(i)
		if err := c.Send(ctxT(t), lmp.SessionSend{Text: text, RequestID: id, TaskID: task}); err != nil {
			t.Fatal(err)
		}
		f, err := c.Expect(ctxT(t), func(f client.Frame) bool {
			return f.Type == lmp.TypeAck && strings.Contains(string(f.Payload), `"request_id":"`+id+`"`)
		})
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		a, err := lmp.DecodePayload[lmp.Ack](f.Type, f.Payload)
		if err != nil || a.TaskID == nil {
			t.Fatalf("message %d: ack %s (%v)", i, f.Payload, err)
		}
		task = a.TaskID
	}
	// Every turn has started (Hermes fired its pre_llm_call, then the first
	// stream hook: run.started), each interrupting the one before.
	for started := 0; started < turns; {
		f, err := c.Next(ctxT(t))
		if err != nil {
			t.Fatalf("%d of %d runs started: %v", started, turns, err)
		}
		if f.Type == lmp.TypeRunStarted {
			started++
		}
	}
	grew := peakRSS(t, p.Cmd.Process.Pid) - before
	t.Logf("peak RSS grew by %.1f MiB over %d turns of %d characters", float64(grew)/(1<<20), turns, len(text))
	if grew >= 64<<20 {
		t.Fatalf("the server's peak RSS grew by %d MiB over a chat of %d messages of %d characters: expected less than 64 MiB", grew>>20, turns, len(text))
	}
}
