package server

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestEventFrameIsWhatEncodingJSONWrites checks the spliced envelope
// against the same frame encoded by encoding/json through lmp.Frame, for
// values the direct path appends itself and values it hands to
// json.Marshal (E-1, E-3, T-7).
func TestEventFrameIsWhatEncodingJSONWrites(t *testing.T) {
	task, odd := "task_b", "t\"<&>\u00e9\n"
	cases := []struct {
		name          string
		typ           string
		taskID, runID *string
		ts            time.Time
	}{
		{"plain", lmp.TypeNotification, &task, nil, time.Unix(1764547200, 123456789)},
		{"escaped ids", "type<x>", &odd, &odd, time.Unix(1, 0)},
		{"whole second", lmp.TypeRunStarted, nil, &task, time.Unix(1764547200, 0)},
		{"tiny ts", lmp.TypeNotification, nil, nil, time.Unix(0, 1)},
	}
	payload := json.RawMessage(`{"text":"hi"}`)
	for _, tc := range cases {
		ev := newEvent(tc.typ, tc.ts, tc.taskID, tc.runID, payload)
		ev.g = 107
		for _, base := range []int64{0, 100, 106} {
			seq := ev.g - base
			want, err := json.Marshal(lmp.Frame{V: lmp.Version, Seq: seq, TS: lmp.Timestamp(tc.ts), Type: tc.typ,
				TaskID: tc.taskID, RunID: tc.runID, EventID: lmp.EventID(seq), Payload: payload})
			if err != nil {
				t.Fatal(err)
			}
			if got := ev.appendTo(nil, base); !bytes.Equal(got, want) {
				t.Errorf("%s, base %d:\n got %s\nwant %s", tc.name, base, got, want)
			}
		}
	}
}

// TestEventFrameBufferReuse renders two devices' frames into one reused
// buffer, as a writer does: each rendering is complete and correct,
// whatever the buffer held before.
func TestEventFrameBufferReuse(t *testing.T) {
	a := newEvent(lmp.TypeNotification, time.Unix(5, 0), nil, nil, json.RawMessage(`{"text":"a longer payload"}`))
	a.g = 1234567
	b := newEvent(lmp.TypeNotification, time.Unix(5, 0), nil, nil, json.RawMessage(`{}`))
	b.g = 2
	buf := a.appendTo(nil, 0)
	buf = b.appendTo(buf[:0], 1)
	var f lmp.Frame
	if err := json.Unmarshal(buf, &f); err != nil {
		t.Fatalf("%s: %v", buf, err)
	}
	if f.Seq != 1 || f.EventID != "e_1" || string(f.Payload) != `{}` {
		t.Fatalf("reused buffer: %s", buf)
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("task_b", 1764547200.5)
	f.Add("<\u2028\xff>", 1e-7)
	f.Add("", 1e21)
	f.Fuzz(func(t *testing.T, s string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return // not a timestamp; encoding/json refuses them
		}
		check := func(got []byte, v any) {
			want, _ := json.Marshal(v)
			if !bytes.Equal(got, want) {
				t.Fatalf("appendJSON(%#v) = %s, encoding/json says %s", v, got, want)
			}
		}
		check(appendJSON(nil, s), s)
		check(appendJSON(nil, &s), &s)
		check(appendJSON(nil, x), x)
		check(appendJSON[*string](nil, nil), nil)
	})
}
