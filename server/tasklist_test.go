package server

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestTaskListResultIsWhatEncodingJSONWrites holds appendTaskListResult to
// json.Marshal of the same value. Every field of lmp.TaskListResult and
// lmp.Task is filled by reflection, so a field added to either, and not to
// the appender, fails here; a field of a kind the filler does not know
// fails too, by name.
func TestTaskListResultIsWhatEncodingJSONWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 25))
	results := []lmp.TaskListResult{{RequestID: "r"}, {RequestID: "r", Tasks: []lmp.Task{}}}
	for range 300 {
		var r lmp.TaskListResult
		fill(t, rng, reflect.ValueOf(&r).Elem())
		results = append(results, r)
	}
	for _, r := range results {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendTaskListResult(nil, r); !bytes.Equal(got, want) {
			t.Fatalf("appendTaskListResult(%+v):\n got %s\nwant %s", r, got, want)
		}
		raw, err := encodePayload(r, nil, nil)
		if err != nil || !bytes.Equal(raw, want) {
			t.Fatalf("encodePayload: %s (%v), want %s", raw, err, want)
		}
	}
}

// Values a task row's fields take in fill: strings encoding/json writes as
// they are, escapes, HTML-escapes, U+2028 and bad UTF-8; numbers written in
// either of encoding/json's float formats, and at their edges.
var (
	fillStrings = []string{"", "task_1", "live", "ended", "Ação <b>&</b>", "\"q\"\\\n\t\x01\x7f", "\u2028\u2029", "\xff\xfe", "emoji 🙂", "a\u0000b"}
	fillFloats  = []float64{0, 1764547200.123456, 1764547200, -1, 1e-6, 9.99e-7, 1e20, 1e21, 123456789012345678901234.0, math.SmallestNonzeroFloat64, math.MaxFloat64, 0.1}
	fillInts    = []int64{0, 1, 42, math.MaxInt32, 1 << 53, math.MaxInt64, -1}
)

func fill(t *testing.T, rng *rand.Rand, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(fillStrings[rng.IntN(len(fillStrings))])
	case reflect.Float64:
		v.SetFloat(fillFloats[rng.IntN(len(fillFloats))])
	case reflect.Int, reflect.Int64:
		v.SetInt(fillInts[rng.IntN(len(fillInts))])
	case reflect.Pointer:
		if rng.IntN(3) == 0 {
			return // nil
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, rng, v.Elem())
	case reflect.Slice:
		n := rng.IntN(4)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fill(t, rng, v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, rng, v.Field(i))
		}
	default:
		t.Fatalf("fill: no values for a field of kind %s (%s): add them, and the field to appendTask", v.Kind(), v.Type())
	}
}

// BenchmarkTaskListResult compares json.Marshal with the appender on a
// full default page of 20 rows.
func BenchmarkTaskListResult(b *testing.B) {
	title, model, ended := "Plan the trip", "hermes-4", 1764547300.5
	r := lmp.TaskListResult{RequestID: "req_1"}
	for i := range 20 {
		task := lmp.Task{TaskID: "task_" + string(rune('a'+i)), Title: &title, Status: lmp.TaskStatusLive, Source: "loomi",
			Model: &model, StartedAt: 1764547200.25, MessageCount: i, Preview: "What is the weather like in Lisbon tomorrow", LastActive: 1764547260.75}
		if i%2 == 0 {
			task.Preview = "Qual é o tempo amanhã em <Lisboa> & Porto?"
		}
		if i%3 == 0 {
			task.Status, task.EndedAt = lmp.TaskStatusEnded, &ended
		}
		r.Tasks = append(r.Tasks, task)
	}
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			appendTaskListResult(nil, r) // a fresh payload, as the server queues it
		}
	})
}

// TestTasksOfFoldsBeforeItFilters folds a chat's sessions into one task
// before status_filter and limit judge it by its newest session: an older
// session of a chat that is left out never comes back as a task of its
// own, and an older session of a kept chat still counts after the limit
// is reached (F-9, note 18).
func TestTasksOfFoldsBeforeItFilters(t *testing.T) {
	s := &Server{runs: newRunTable(nil, nil, Config{})}
	for session, chat := range map[string]string{"s_a2": "chat_a", "s_a1": "chat_a", "s_b2": "chat_b", "s_b1": "chat_b"} {
		s.runs.sessions.Put(session, chat)
	}
	at := func(min int) time.Time { return time.Unix(1764547200+int64(min)*60, 0) }
	ended := at(50)
	rows := []hermes.SessionRow{ // newest first, as list_sessions_rich gives them
		{ID: "s_b2", StartedAt: at(40), LastActive: at(45), MessageCount: 2},
		{ID: "s_a2", StartedAt: at(30), EndedAt: &ended, MessageCount: 3},
		{ID: "s_lone", StartedAt: at(20), MessageCount: 1},
		{ID: "s_a1", StartedAt: at(10), LastActive: at(15), MessageCount: 5},
		{ID: "s_b1", StartedAt: at(0), EndedAt: &ended, LastActive: at(5), MessageCount: 7},
	}
	type row struct {
		id     string
		status string
		count  int
		start  float64
	}
	cases := []struct {
		filter string
		limit  int
		want   []row
	}{
		{lmp.StatusFilterAll, 20, []row{{"chat_b", "live", 9, lmp.Timestamp(at(0))}, {"chat_a", "ended", 8, lmp.Timestamp(at(10))}, {"s_lone", "live", 1, lmp.Timestamp(at(20))}}},
		{lmp.StatusFilterAll, 1, []row{{"chat_b", "live", 9, lmp.Timestamp(at(0))}}},
		{"live", 20, []row{{"chat_b", "live", 9, lmp.Timestamp(at(0))}, {"s_lone", "live", 1, lmp.Timestamp(at(20))}}},
		{"ended", 20, []row{{"chat_a", "ended", 8, lmp.Timestamp(at(10))}}},
		{"live", 0, nil},
	}
	for _, c := range cases {
		var got []row
		for _, task := range s.tasksOf(rows, c.filter, c.limit) {
			got = append(got, row{task.TaskID, task.Status, task.MessageCount, task.StartedAt})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("status_filter %s, limit %d:\n got %v\nwant %v", c.filter, c.limit, got, c.want)
		}
	}
	if tasks := s.tasksOf(rows, lmp.StatusFilterAll, 1); tasks[0].LastActive != lmp.Timestamp(at(45)) {
		t.Errorf("chat_b's last_active %v, want its newest session's %v", tasks[0].LastActive, lmp.Timestamp(at(45)))
	}
}
