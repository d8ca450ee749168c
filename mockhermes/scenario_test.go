package mockhermes

import (
	"context"
	"strings"
	"testing"
)

// hooksOnly keeps the events a turn is made of.
func hooksOf(evs []event) []event {
	var out []event
	for _, e := range evs {
		if e.Kind == "hook" || e.Kind == "prompt" {
			out = append(out, e)
		}
	}
	return out
}

func TestBuiltinsParseAndValidate(t *testing.T) {
	m := New(Options{})
	defer m.Close()
	want := []string{"approval", "burst", "fail", "interim", "long", "notify", "quirks", "reply", "tools"}
	if got := strings.Join(m.ScenarioNames(), ","); got != strings.Join(want, ",") {
		t.Fatalf("built-ins = %s, want %s", got, strings.Join(want, ","))
	}
	for _, sc := range m.Scenarios() {
		if sc.Description == "" || sc.Usage == "" {
			t.Errorf("%s: missing description or usage", sc.Name)
		}
	}
}

func TestReplyScenario(t *testing.T) {
	m, f := newTestMock(t, Options{})
	pb, err := m.PlayWith(context.Background(), "reply", nil, "", PlayOptions{Text: "hi there"})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb)
	evs := f.snapshot()
	if got, want := compact(evs), "on_stream_start on_stream_delta×"; !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "on_stream_end") {
		t.Fatalf("reply hooks = %s", got)
	}
	if n := count(evs, "on_stream_start"); n != 1 {
		t.Fatalf("reply made %d model calls, want 1", n)
	}
	var text, reasoning strings.Builder
	for _, e := range evs {
		if e.Name != "on_stream_delta" {
			continue
		}
		switch e.Kwargs["kind"] {
		case "text":
			text.WriteString(e.Kwargs["delta"].(string))
		case "reasoning":
			if text.Len() > 0 {
				t.Fatal("reasoning after text")
			}
			reasoning.WriteString(e.Kwargs["delta"].(string))
		default:
			t.Fatalf("bad delta kind %v", e.Kwargs["kind"])
		}
		for _, k := range []string{"turn_id", "iteration", "session_id", "model", "provider", "surface", "telemetry_schema_version"} {
			if _, ok := e.Kwargs[k]; !ok {
				t.Fatalf("delta lacks %s: %v", k, e.Kwargs)
			}
		}
	}
	if reasoning.Len() == 0 || !strings.Contains(text.String(), "You said: hi there") || !strings.Contains(text.String(), "```go") {
		t.Fatalf("reply text %q, reasoning %q", text.String(), reasoning.String())
	}
	end := evs[len(evs)-1].Kwargs
	if end["finished"] != true || end["error"] != nil || end["final_text"] != text.String() {
		t.Fatalf("end kwargs = %v", end)
	}
	if end["session_id"] != pb.TaskID || end["turn_id"] != pb.TurnID || end["iteration"] != 1.0 {
		t.Fatalf("end ids = %v, want session %s turn %s", end, pb.TaskID, pb.TurnID)
	}
}

func TestToolsScenario(t *testing.T) {
	m, f := newTestMock(t, Options{})
	pb := play(t, m, "tools")
	waitDone(t, pb)
	evs := hooksOf(f.snapshot())
	got := compact(evs)
	want := "on_stream_start on_stream_delta× on_stream_end pre_tool_call×2 post_tool_call×2 " +
		"on_stream_start on_stream_delta× on_stream_end pre_tool_call post_tool_call pre_tool_call post_tool_call " +
		"on_stream_start on_stream_delta× on_stream_end"
	if !matchCompact(got, want) {
		t.Fatalf("tools hooks:\n got %s\nwant %s", got, want)
	}
	// One turn_id throughout; iterations 1, 2, 3; finished only at the end.
	iters := []float64{}
	pre := map[string]event{}
	for _, e := range evs {
		if e.Kwargs["turn_id"] != pb.TurnID {
			t.Fatalf("%s has turn_id %v, want %s", e.Name, e.Kwargs["turn_id"], pb.TurnID)
		}
		switch e.Name {
		case "on_stream_start":
			iters = append(iters, e.Kwargs["iteration"].(float64))
		case "on_stream_end":
			last := len(iters) == 3
			if e.Kwargs["finished"] != last {
				t.Fatalf("end of iteration %d finished=%v", len(iters), e.Kwargs["finished"])
			}
		case "pre_tool_call":
			id := e.Kwargs["tool_call_id"].(string)
			if _, dup := pre[id]; dup || id == "" {
				t.Fatalf("tool_call_id %q not unique", id)
			}
			pre[id] = e
			if e.Kwargs["task_id"] != pb.TaskID || e.Kwargs["session_id"] != pb.TaskID {
				t.Fatalf("task_id/session_id = %v", e.Kwargs)
			}
		case "post_tool_call":
			p, ok := pre[e.Kwargs["tool_call_id"].(string)]
			if !ok || p.Kwargs["tool_name"] != e.Kwargs["tool_name"] {
				t.Fatalf("post without matching pre: %v", e.Kwargs)
			}
			if _, ok := e.Kwargs["duration_ms"].(float64); !ok {
				t.Fatalf("duration_ms = %v", e.Kwargs["duration_ms"])
			}
		}
	}
	if len(iters) != 3 || iters[0] != 1 || iters[1] != 2 || iters[2] != 3 {
		t.Fatalf("iterations = %v", iters)
	}
	// The parallel pair: same tool, finishing in reverse order.
	var firstPair []event
	for _, e := range evs {
		if strings.HasSuffix(e.Name, "_tool_call") && len(firstPair) < 4 {
			firstPair = append(firstPair, e)
		}
	}
	if firstPair[0].Kwargs["tool_name"] != "read_file" || firstPair[1].Kwargs["tool_name"] != "read_file" ||
		firstPair[2].Kwargs["tool_call_id"] != firstPair[1].Kwargs["tool_call_id"] ||
		firstPair[3].Kwargs["tool_call_id"] != firstPair[0].Kwargs["tool_call_id"] {
		t.Fatal("the two read_file calls do not start together and finish in reverse")
	}
	var statuses []string
	for _, e := range evs {
		if e.Name == "post_tool_call" {
			statuses = append(statuses, e.Kwargs["status"].(string))
		}
	}
	if strings.Join(statuses, ",") != "ok,ok,ok,error" {
		t.Fatalf("statuses = %v", statuses)
	}
}

// matchCompact compares compacted sequences where want's "x×" matches any
// run of x.
func matchCompact(got, want string) bool {
	g, w := strings.Fields(got), strings.Fields(want)
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if strings.HasSuffix(w[i], "×") {
			if !strings.HasPrefix(g[i], w[i]) && g[i] != strings.TrimSuffix(w[i], "×") {
				return false
			}
		} else if g[i] != w[i] {
			return false
		}
	}
	return true
}

func TestFailScenario(t *testing.T) {
	m, f := newTestMock(t, Options{})
	waitDone(t, play(t, m, "fail"))
	evs := f.snapshot()
	if got := compact(evs); !matchCompact(got, "on_stream_start on_stream_delta× on_stream_end") {
		t.Fatalf("fail hooks = %s", got)
	}
	end := evs[len(evs)-1].Kwargs
	if end["final_text"] != "" || end["finished"] != false || !strings.Contains(end["error"].(string), "529") {
		t.Fatalf("fail end = %v", end)
	}
}

func TestNotifyScenario(t *testing.T) {
	m, f := newTestMock(t, Options{})
	pb := play(t, m, "notify")
	waitDone(t, pb)
	evs := f.snapshot()
	if len(evs) != 2 || evs[0].Kind != "send" || evs[1].Kind != "send" {
		t.Fatalf("notify = %s", names(evs))
	}
	if pb.TurnID != "" || pb.RunID() != "" {
		t.Fatal("notify must not start a turn")
	}
	if evs[0].Meta["category"] != "result" || evs[0].Meta["source"] != "cron" ||
		evs[1].Meta["category"] != "diagnostic" || evs[1].Meta["requires_attention"] != true || evs[0].ChatID != pb.TaskID {
		t.Fatalf("notify metadata = %v / %v", evs[0].Meta, evs[1].Meta)
	}
}

func TestBurstScenario(t *testing.T) {
	m, f := newTestMock(t, Options{})
	waitDone(t, play(t, m, "burst", "250"))
	evs := f.snapshot()
	if len(evs) != 250 {
		t.Fatalf("burst 250 sent %d", len(evs))
	}
	if evs[249].Text != "Burst notification 250 of 250" || evs[0].Meta["title"] != "Burst 1/250" {
		t.Fatalf("burst texts %q / %v", evs[249].Text, evs[0].Meta["title"])
	}
	waitDone(t, play(t, m, "burst"))
	if n := len(f.snapshot()) - 250; n != 20 {
		t.Fatalf("default burst sent %d, want 20", n)
	}
	waitDone(t, play(t, m, "burst", "3", "1ms"))
	if n := len(f.snapshot()) - 270; n != 3 {
		t.Fatalf("paced burst sent %d, want 3", n)
	}
	for _, bad := range [][]string{{"100001"}, {"0"}, {"many"}, {"1", "2ms", "3"}, {"1", "soon"}} {
		if _, err := m.Play(context.Background(), "burst", bad, ""); err == nil {
			t.Errorf("burst %v accepted", bad)
		} else if bad[0] == "100001" && !strings.Contains(err.Error(), "at most 100000") {
			t.Errorf("burst 100001: %v", err)
		}
	}
}

func TestInterimScenario(t *testing.T) {
	m, f := newTestMock(t, Options{})
	waitDone(t, play(t, m, "interim"))
	evs := f.snapshot()
	want := "on_stream_start on_stream_delta× on_interim_message on_stream_end pre_tool_call post_tool_call " +
		"on_stream_start on_interim_message on_stream_end pre_tool_call post_tool_call on_stream_start on_stream_delta× on_stream_end"
	if got := compact(evs); !matchCompact(got, want) {
		t.Fatalf("interim hooks:\n got %s\nwant %s", got, want)
	}
	var streamed []any
	for _, e := range evs {
		if e.Name == "on_interim_message" {
			streamed = append(streamed, e.Kwargs["already_streamed"])
		}
	}
	if len(streamed) != 2 || streamed[0] != true || streamed[1] != false {
		t.Fatalf("already_streamed = %v", streamed)
	}
}

func TestLongStopsOnInterrupt(t *testing.T) {
	m, f := newTestMock(t, Options{})
	pb := play(t, m, "long")
	f.waitHook(t, "on_stream_delta", 5)
	if err := m.InterruptSession(context.Background(), SessionKey(pb.TaskID), pb.TaskID); err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb)
	evs := f.waitHook(t, "agent_loop_stopped", 1)
	last := evs[len(evs)-1]
	if last.Name != "agent_loop_stopped" || last.Kwargs["session_key"] != SessionKey(pb.TaskID) || last.Kwargs["platform"] != "loomi" {
		t.Fatalf("last = %s %v", last.Name, last.Kwargs)
	}
	end := evs[len(evs)-2]
	if end.Name != "on_stream_end" || end.Kwargs["finished"] != false || end.Kwargs["error"] != nil {
		t.Fatalf("interrupted end = %s %v", end.Name, end.Kwargs)
	}
}

func TestBusySessionQueues(t *testing.T) {
	m, f := newTestMock(t, Options{})
	pb1 := play(t, m, "tools")
	pb2, err := m.Play(context.Background(), "fail", nil, pb1.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb2)
	evs := f.snapshot()
	// Every tools hook comes before the first fail hook.
	seenFail := false
	for _, e := range evs {
		switch e.Kwargs["turn_id"] {
		case pb2.TurnID:
			seenFail = true
		case pb1.TurnID:
			if seenFail {
				t.Fatal("the queued scenario interleaved with the running one")
			}
		}
	}
	if !seenFail {
		t.Fatal("queued scenario never played")
	}
}

func TestFaultModes(t *testing.T) {
	m, f := newTestMock(t, Options{})
	waitDone(t, play(t, m, "quirks"))
	evs := f.snapshot()
	// Reorder: a delta arrives after its call's end; Duplicate: ends twice.
	lateDelta, ends, posts := false, count(evs, "on_stream_end"), count(evs, "post_tool_call")
	for i := 1; i < len(evs); i++ {
		if evs[i].Name == "on_stream_delta" && evs[i-1].Name == "on_stream_end" {
			lateDelta = true
		}
	}
	if !lateDelta || ends != 2*count(evs, "on_stream_start") || posts != 2 {
		t.Fatalf("faults not applied: %s", names(evs))
	}
	// DropEvery drops text: the deltas do not add up to the script's text.
	var got strings.Builder
	for _, e := range evs {
		if e.Name == "on_stream_delta" && e.Kwargs["iteration"] == 1.0 {
			got.WriteString(e.Kwargs["delta"].(string))
		}
	}
	if got.String() == "Some of these chunks arrive late, some never, and the end twice." {
		t.Fatal("no delta dropped")
	}

	// Off by default, and settable per playback.
	m2, f2 := newTestMock(t, Options{})
	waitDone(t, play(t, m2, "reply"))
	if c := count(f2.snapshot(), "on_stream_end"); c != 1 {
		t.Fatalf("faults on by default: %d ends", c)
	}
	pb, err := m2.PlayWith(context.Background(), "reply", nil, "", PlayOptions{Faults: Faults{Duplicate: true}})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb)
	if c := count(f2.snapshot(), "on_stream_end"); c != 3 {
		t.Fatalf("per-play duplicate: %d ends in total, want 3", c)
	}
}

// A stop that lands between two chunks streamed without a pause must end
// the call unfinished, never as a failure.
func TestInterruptNeverFails(t *testing.T) {
	m, f := newTestMock(t, Options{})
	if err := m.LoadScriptBytes("fast.yaml", []byte("name: fast\nsteps:\n  - repeat: forever\n    steps:\n      - stream: abcdefgh\n        chunk: 1\n")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		pb := play(t, m, "fast")
		f.waitFor(t, "a delta", func(evs []event) bool {
			for _, e := range evs {
				if e.Name == "on_stream_delta" && e.Kwargs["turn_id"] == pb.TurnID {
					return true
				}
			}
			return false
		})
		m.InterruptSession(context.Background(), SessionKey(pb.TaskID), pb.TaskID)
		waitDone(t, pb)
		for _, e := range f.snapshot() {
			if e.Name == "on_stream_end" && e.Kwargs["turn_id"] == pb.TurnID && (e.Kwargs["error"] != nil || e.Kwargs["finished"] != false) {
				t.Fatalf("interrupted call ended as %v", e.Kwargs)
			}
		}
	}
}
