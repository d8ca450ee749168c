package server

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
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
	payload := lmp.Notification{Category: lmp.CategoryResult, Text: "hi <&> \u2028 \"quoted\"", Source: "gateway"}
	encoded, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		ev := testEvent(tc.typ, tc.ts, tc.taskID, tc.runID, payload)
		ev.g = 107
		for _, base := range []int64{0, 100, 106} {
			seq := ev.g - base
			want, err := json.Marshal(lmp.Frame{V: lmp.Version, Seq: seq, TS: lmp.Timestamp(tc.ts), Type: tc.typ,
				TaskID: tc.taskID, RunID: tc.runID, EventID: lmp.EventID(seq), Payload: encoded})
			if err != nil {
				t.Fatal(err)
			}
			if got := ev.appendTo(nil, base); !bytes.Equal(got, want) {
				t.Errorf("%s, base %d:\n got %s\nwant %s", tc.name, base, got, want)
			}
		}
	}
}

// TestScopedFrameIsWhatEncodingJSONWrites holds the spliced frames of
// writeScoped to encoding/json's lmp.Frame, for the payloads every scoped
// frame gets (scopedOf: json.Marshal, shortened to fit when long), the
// ping's included, and the envelope values of the event test above.
func TestScopedFrameIsWhatEncodingJSONWrites(t *testing.T) {
	task, odd := "task_b", "t\"<&>\u00e9\n\u2028"
	limit := 3
	payloads := []lmp.Payload{
		lmp.Ping{},
		lmp.Error{Code: lmp.CodeInvalidPayload, Message: "bad <field> & \"more\" \u2028\x01", RequestID: "r<1>"},
		lmp.TaskListResult{RequestID: "r", Tasks: []lmp.Task{{TaskID: odd, Preview: "é<b>", Status: "running"}}},
		lmp.Notification{Category: lmp.CategoryResult, Text: strings.Repeat("é<&", lmp.MaxFrameBytes/4), Source: "gateway"},
		lmp.TaskList{RequestID: "x", Limit: &limit},
	}
	ids := []*string{nil, &task, &odd}
	for i, p := range payloads {
		for _, id := range ids {
			f := scopedOf(p, id, ids[(i+1)%len(ids)])
			for _, seq := range []int64{0, 7, math.MaxInt64} {
				for _, ts := range []time.Time{time.Unix(1764547200, 123456789), time.Unix(1764547200, 0), time.Unix(0, 1)} {
					want, err := json.Marshal(lmp.Frame{V: lmp.Version, Seq: seq, TS: lmp.Timestamp(ts), Type: f.typ,
						TaskID: f.taskID, RunID: f.runID, EventID: lmp.EventID(seq), Payload: f.payload})
					if err != nil {
						t.Fatal(err)
					}
					if got := appendScoped(nil, f, seq, ts); !bytes.Equal(got, want) {
						t.Errorf("%s, seq %d, ts %v:\n got %.300s\nwant %.300s", f.typ, seq, ts, got, want)
					}
				}
			}
		}
	}
	if got := appendScoped(nil, pingFrame, 3, time.Unix(2, 0)); string(got) != `{"v":1,"seq":3,"ts":2,"type":"ping","task_id":null,"run_id":null,"event_id":"e_3","payload":{}}` {
		t.Errorf("ping: %s", got)
	}
}

func TestEventPayloadThatDoesNotEncode(t *testing.T) {
	if _, err := newEvent(lmp.TypeNotification, time.Now(), nil, nil, map[string]float64{"x": math.Inf(1)}); err == nil {
		t.Fatal("an infinite number encoded as JSON")
	}
	// The scratch buffer it left is reset: the next event is whole.
	ev := testEvent(lmp.TypeNotification, time.Unix(1, 0), nil, nil, map[string]int{"n": 1})
	ev.g = 1
	var f lmp.Frame
	if err := json.Unmarshal(ev.appendTo(nil, 0), &f); err != nil || string(f.Payload) != `{"n":1}` {
		t.Fatalf("event after a failed one: %s (%v)", ev.appendTo(nil, 0), err)
	}
}

// TestEventWithinTheFrameLimit publishes a notification whose text alone
// is over lmp.MaxFrameBytes: the event's frame, at the longest seq a
// device can have, still fits, its text shortened with cutMark.
func TestEventWithinTheFrameLimit(t *testing.T) {
	task := strings.Repeat("t", 300)
	n := lmp.Notification{Category: lmp.CategoryResult, Text: strings.Repeat("é<", lmp.MaxFrameBytes/2), Source: "gateway"}
	ev := testEvent(lmp.TypeNotification, time.Now(), &task, nil, n)
	ev.g = math.MaxInt64
	raw := ev.appendTo(nil, 0)
	if len(raw) > lmp.MaxFrameBytes {
		t.Fatalf("frame of %d bytes, over the %d-byte limit", len(raw), lmp.MaxFrameBytes)
	}
	var f struct{ Payload lmp.Notification }
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(f.Payload.Text, cutMark) || f.Payload.Source != "gateway" {
		t.Fatalf("shortened text ends %q, source %q", f.Payload.Text[len(f.Payload.Text)-40:], f.Payload.Source)
	}
}

// TestEventFrameBufferReuse renders two devices' frames into one reused
// buffer, as a writer does: each rendering is complete and correct,
// whatever the buffer held before.
func TestEventFrameBufferReuse(t *testing.T) {
	a := testEvent(lmp.TypeNotification, time.Unix(5, 0), nil, nil, json.RawMessage(`{"text":"a longer payload"}`))
	a.g = 1234567
	b := testEvent(lmp.TypeNotification, time.Unix(5, 0), nil, nil, json.RawMessage(`{}`))
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

// testEvent is newEvent for payloads that always encode.
func testEvent(typ string, ts time.Time, taskID, runID *string, payload any) *event {
	ev, err := newEvent(typ, ts, taskID, runID, payload)
	if err != nil {
		panic(err)
	}
	return ev
}

// BenchmarkScopedFrame renders a task.list.result's frame the way
// writeScoped does, and the way it did before (json.Marshal of lmp.Frame),
// as the baseline of the same run.
func BenchmarkScopedFrame(b *testing.B) {
	task := "task_0123456789abcdef"
	rows := make([]lmp.Task, 20)
	for i := range rows {
		rows[i] = lmp.Task{TaskID: task, Status: "live", Source: "loomi", Preview: "a message <with> some text", StartedAt: 1764547200.25}
	}
	f := scopedOf(lmp.TaskListResult{RequestID: "req-1", Tasks: rows}, nil, nil)
	now := time.Unix(1764547200, 123456789)
	b.Run("splice", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = appendScoped(buf[:0], f, 42, now)
		}
	})
	b.Run("marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(lmp.Frame{V: lmp.Version, Seq: 42, TS: lmp.Timestamp(now), Type: f.typ,
				TaskID: f.taskID, RunID: f.runID, EventID: lmp.EventID(42), Payload: f.payload})
		}
	})
}
