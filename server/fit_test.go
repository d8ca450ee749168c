package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestEncodePayloadFitsTheFrameLimit: payloads of every shape that do not
// fit come out within the budget, their long strings cut with the mark,
// their numbers and short strings untouched; payloads that fit are the
// plain encoding.
func TestEncodePayloadFitsTheFrameLimit(t *testing.T) {
	task := strings.Repeat("\u2028", lmp.MaxIDLength)
	rows := make([]lmp.Task, 200)
	for i := range rows {
		rows[i] = lmp.Task{TaskID: "t", Title: lmp.Ref(strings.Repeat("<", 2_000)), MessageCount: 9007199254740991}
	}
	for name, p := range map[string]any{
		"one long string":  lmp.Notification{Category: "result", Title: "t", Text: strings.Repeat("\u2028", 300_000)},
		"two long strings": lmp.Notification{Category: "result", Title: strings.Repeat("&", 300_000), Text: strings.Repeat("\u2028", 300_000)},
		"many rows":        lmp.TaskListResult{RequestID: "r", Tasks: rows},
	} {
		raw, err := encodePayload(p, &task, &task)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		frame := len(raw) + envelopeReserve + 2*encodedStringLen(task)
		if frame > lmp.MaxFrameBytes || len(raw) < lmp.MaxFrameBytes/2 {
			t.Errorf("%s: a frame of about %d bytes, want at most %d and not cut far below it", name, frame, lmp.MaxFrameBytes)
		}
		if !strings.Contains(string(raw), cutMark) || !strings.Contains(string(raw), `"category":"result"`) && !strings.Contains(string(raw), `"request_id":"r"`) {
			t.Errorf("%s: no cut mark, or a short field lost: %.200s", name, raw)
		}
		if name == "many rows" && !strings.Contains(string(raw), "9007199254740991") {
			t.Errorf("a number changed: %.300s", raw)
		}
		var back map[string]any
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Errorf("%s: not JSON: %v", name, err)
		}
	}
	small := lmp.Notification{Category: "result", Title: "t", Text: "hi"}
	raw, _ := encodePayload(small, nil, nil)
	if want, _ := json.Marshal(small); string(raw) != string(want) {
		t.Errorf("a payload that fits changed: %s", raw)
	}
}
