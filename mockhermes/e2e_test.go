package mockhermes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/mockhermes"
	"github.com/loomi-lmp/lmpkit/reference"
)

// stack is a running reference instance: the real server and the mock
// Hermes behind one real loopback listener, as lmp-server runs them.
type stack struct {
	ws  string // ws://127.0.0.1:port/ws
	drv *driver.Client
}

func startStack(t *testing.T, mutate ...func(*reference.Options)) *stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// As lmp-server runs it for app developers: reasoning deltas on, and
	// turns of other platforms and subagents beside every scenario, which
	// no phone may see.
	o := reference.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Name: "e2e",
		HermesReasoningDeltas: true, HermesCrosstalk: true}
	for _, m := range mutate {
		m(&o)
	}
	inst, err := reference.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		inst.Close(ctx)
	})
	return &stack{ws: inst.WSURL, drv: driver.New(inst.DriverURL, nil)}
}

func (s *stack) calls(t *testing.T) []driver.Call {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl, err := s.drv.Calls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return cl.Calls
}

// phone pairs a new device and returns its connection.
func (s *stack) phone(t *testing.T) *client.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pairURL, err := client.PairURLFor(s.ws)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := client.Pair(ctx, pairURL, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _, _, err := client.PairDevice(ctx, s.ws, pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

var reqN atomic.Int64

func reqID() string { return fmt.Sprintf("r%d", reqN.Add(1)) }

// send sends a user message and returns the task it went to.
func send(t *testing.T, c *client.Conn, taskID, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rid := reqID()
	p := lmp.SessionSend{Text: text, RequestID: rid}
	if taskID != "" {
		p.TaskID = &taskID
	}
	if err := c.Send(ctx, p); err != nil {
		t.Fatal(err)
	}
	f, err := c.Expect(ctx, func(f client.Frame) bool {
		return (f.Type == lmp.TypeAck || f.Type == lmp.TypeError) && strings.Contains(string(f.Payload), `"`+rid+`"`)
	})
	if err != nil {
		t.Fatalf("no ack for %q: %v\n%s", text, err, c.Transcript())
	}
	if f.Type != lmp.TypeAck {
		t.Fatalf("session.send %q refused: %s", text, f.Payload)
	}
	ack := decode[lmp.Ack](t, f)
	return lmp.Deref(ack.TaskID)
}

func decode[T lmp.Payload](t *testing.T, f client.Frame) T {
	t.Helper()
	p, err := lmp.DecodePayload[T](f.Type, f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runFrames collects the frames of task's run until its terminal frame.
func runFrames(t *testing.T, c *client.Conn, task string) []client.Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var out []client.Frame
	for {
		f, err := c.Expect(ctx, func(f client.Frame) bool { return lmp.Deref(f.TaskID) == task && strings.HasPrefix(f.Type, "run.") })
		if err != nil {
			t.Fatalf("run of %s did not end: %v\nframes so far: %s", task, err, types(out))
		}
		out = append(out, f)
		if f.Type == lmp.TypeRunCompleted || f.Type == lmp.TypeRunFailed {
			return out
		}
	}
}

func types(fs []client.Frame) string {
	var s []string
	for i := 0; i < len(fs); {
		j := i
		for j < len(fs) && fs[j].Type == fs[i].Type {
			j++
		}
		if j-i > 1 {
			s = append(s, fmt.Sprintf("%s×%d", fs[i].Type, j-i))
		} else {
			s = append(s, fs[i].Type)
		}
		i = j
	}
	return strings.Join(s, " ")
}

func ofType(fs []client.Frame, typ string) []client.Frame {
	var out []client.Frame
	for _, f := range fs {
		if f.Type == typ {
			out = append(out, f)
		}
	}
	return out
}

func expectRunShape(t *testing.T, fs []client.Frame) string {
	t.Helper()
	if fs[0].Type != lmp.TypeRunStarted {
		t.Fatalf("run begins with %s", fs[0].Type)
	}
	run := lmp.Deref(fs[0].RunID)
	for _, f := range fs {
		if lmp.Deref(f.RunID) != run {
			t.Fatalf("%s of run %s inside run %s", f.Type, lmp.Deref(f.RunID), run)
		}
	}
	if n := len(ofType(fs, lmp.TypeRunStarted)); n != 1 {
		t.Fatalf("%d run.started in one turn", n)
	}
	return run
}

func TestE2EScenariosOverTheWire(t *testing.T) {
	st := startStack(t)
	c := st.phone(t)

	t.Run("reply", func(t *testing.T) {
		task := send(t, c, "", "hello there")
		fs := runFrames(t, c, task)
		expectRunShape(t, fs)
		var text, reasoning strings.Builder
		for _, f := range ofType(fs, lmp.TypeRunDelta) {
			d := decode[lmp.RunDelta](t, f)
			if d.Kind == lmp.DeltaKindReasoning {
				reasoning.WriteString(d.Text)
			} else {
				text.WriteString(d.Text)
			}
		}
		done := decode[lmp.RunCompleted](t, fs[len(fs)-1])
		if reasoning.Len() == 0 || !strings.Contains(text.String(), "You said: hello there") ||
			done.Status != lmp.RunStatusCompleted || !done.Finished || done.Text != text.String() {
			t.Fatalf("reply: text %q reasoning %q completed %+v", text.String(), reasoning.String(), done)
		}
	})

	t.Run("tools", func(t *testing.T) {
		task := send(t, c, "", "/mock tools")
		fs := runFrames(t, c, task)
		expectRunShape(t, fs)
		// Three model calls: the first two ask for tools (their text comes
		// as interim messages), the third streams the answer.
		starts, ends := ofType(fs, lmp.TypeRunToolStarted), ofType(fs, lmp.TypeRunToolFinished)
		if len(starts) != 5 || len(ends) != 5 || len(ofType(fs, lmp.TypeRunInterim)) != 2 {
			t.Fatalf("tools: %s", types(fs))
		}
		for _, f := range ofType(fs, lmp.TypeRunDelta) {
			if d := decode[lmp.RunDelta](t, f); d.Iteration != 3 {
				t.Fatalf("a delta of iteration %d: the text of a call with tools is not streamed", d.Iteration)
			}
		}
		byCall := map[string]lmp.RunToolStarted{}
		for _, f := range starts {
			s := decode[lmp.RunToolStarted](t, f)
			byCall[s.CallID] = s
		}
		a, b := decode[lmp.RunToolStarted](t, starts[0]), decode[lmp.RunToolStarted](t, starts[1])
		if a.Tool != "read_file" || b.Tool != "read_file" || a.Iteration != b.Iteration || a.Index == b.Index || a.CallID == b.CallID {
			t.Fatalf("same-tool pair: %+v %+v", a, b)
		}
		oks := 0
		for _, f := range ends {
			e := decode[lmp.RunToolFinished](t, f)
			s, ok := byCall[e.CallID]
			if !ok || s.Tool != e.Tool || s.Index != e.Index || s.Iteration != e.Iteration || e.Duration < 0 {
				t.Fatalf("finish %+v does not pair with a start", e)
			}
			if e.OK {
				oks++
			}
		}
		// The parallel pair finishes in reverse.
		var order []string
		for _, f := range ends {
			if id := decode[lmp.RunToolFinished](t, f).CallID; id == a.CallID || id == b.CallID {
				order = append(order, id)
			}
		}
		if len(order) != 2 || order[0] != b.CallID || oks != 4 {
			t.Fatalf("tool finishes: %s", types(fs))
		}
		done := decode[lmp.RunCompleted](t, fs[len(fs)-1])
		if done.Status != lmp.RunStatusCompleted || !strings.Contains(done.Text, "cmd/app/main.go") {
			t.Fatalf("tools run ended %+v", done)
		}
	})

	t.Run("fail", func(t *testing.T) {
		task := send(t, c, "", "/mock fail")
		fs := runFrames(t, c, task)
		expectRunShape(t, fs)
		last := fs[len(fs)-1]
		if last.Type != lmp.TypeRunFailed || !strings.Contains(decode[lmp.RunFailed](t, last).Error, "529") ||
			len(ofType(fs, lmp.TypeRunCompleted)) != 0 {
			t.Fatalf("fail: %s / %s", types(fs), last.Payload)
		}
	})

	t.Run("interim", func(t *testing.T) {
		task := send(t, c, "", "/mock interim")
		fs := runFrames(t, c, task)
		expectRunShape(t, fs)
		in := ofType(fs, lmp.TypeRunInterim)
		if len(in) != 2 || decode[lmp.RunInterim](t, in[0]).Text != "Checking disk usage first." || decode[lmp.RunInterim](t, in[1]).AlreadyStreamed {
			t.Fatalf("interim: %s", types(fs))
		}
	})

	t.Run("retry", func(t *testing.T) {
		task := send(t, c, "", "/mock retry")
		fs := runFrames(t, c, task)
		expectRunShape(t, fs)
		done := fs[len(fs)-1]
		if done.Type != lmp.TypeRunCompleted || !strings.Contains(decode[lmp.RunCompleted](t, done).Text, "retried call got through") {
			t.Fatalf("retry: %s / %s", types(fs), done.Payload)
		}
	})

	t.Run("oversize", func(t *testing.T) {
		// Hermes drops the whole on_stream_end; the run still ends, with
		// the final reply's text.
		task := send(t, c, "", "/mock oversize")
		fs := runFrames(t, c, task)
		expectRunShape(t, fs)
		if done := fs[len(fs)-1]; done.Type != lmp.TypeRunCompleted || len(decode[lmp.RunCompleted](t, done).Text) <= 16*1024 {
			t.Fatalf("oversize: %s", types(fs))
		}
	})

	t.Run("notify", func(t *testing.T) {
		task := send(t, c, "", "/mock notify")
		// Hermes passes only the text: the adapter derives the rest.
		ns := notifications(t, c, task, 2)
		if !strings.HasPrefix(ns[0].Text, "Cron job daily-digest") || !strings.HasPrefix(ns[1].Text, "The model provider") {
			t.Fatalf("notify: %+v", ns)
		}
	})

	t.Run("burst", func(t *testing.T) {
		// The issue's own example: 600 notifications at the default pace
		// all reach the phone, in order, without a slow-consumer close.
		task := send(t, c, "", "/mock burst 600")
		ns := notifications(t, c, task, 600)
		if ns[599].Text != "Burst notification 600 of 600" {
			t.Fatalf("last burst = %+v", ns[599])
		}
	})

	t.Run("help", func(t *testing.T) {
		task := send(t, c, "", "/mock help")
		ns := notifications(t, c, task, 1)
		list, err := st.drv.Scenarios(context.Background())
		if err != nil || len(list.Scenarios) < 9 {
			t.Fatalf("scenarios = %+v, %v", list, err)
		}
		for _, sc := range list.Scenarios {
			if !strings.Contains(ns[0].Text, "- "+sc.Usage+": "+sc.Description) {
				t.Fatalf("help lacks %s: %q", sc.Name, ns[0].Text)
			}
		}
	})

	t.Run("crosstalk never reaches the phone", func(t *testing.T) {
		// Every frame this phone received (the transcript keeps the last
		// few thousand) names a task one of its own messages started.
		known := map[string]bool{}
		for _, e := range c.Transcript().Entries() {
			var env struct {
				TaskID *string `json:"task_id"`
			}
			if e.Dir == client.DirReceived && json.Unmarshal(e.Data, &env) == nil && lmp.Deref(env.TaskID) != "" {
				known[*env.TaskID] = true
			}
		}
		if len(known) < 5 {
			t.Fatalf("the transcript names %d tasks; the scenarios above started more", len(known))
		}
		rows, err := st.drv.Calls(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		chats := map[string]bool{}
		for _, call := range rows.Calls {
			if call.Name == "handle_message" {
				chats[call.Args["event"].(map[string]any)["source"].(map[string]any)["chat_id"].(string)] = true
			}
		}
		for id := range known {
			if !chats[id] {
				t.Errorf("a frame of task %s, which no message of this phone started", id)
			}
		}
	})

	t.Run("quirks", func(t *testing.T) {
		task := send(t, c, "", "/mock quirks")
		fs := runFrames(t, c, task)
		run := expectRunShape(t, fs)
		// Queue another scenario in the same task: when it has played,
		// every late hook of the quirky run has been delivered, and none
		// may have produced a frame after the terminal one.
		send(t, c, task, "/mock notify")
		notifications(t, c, task, 2)
		for _, f := range c.Pending() {
			if lmp.Deref(f.RunID) == run {
				t.Fatalf("%s after run %s ended", f.Type, run)
			}
		}
	})
}

func notifications(t *testing.T, c *client.Conn, task string, n int) []lmp.Notification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var out []lmp.Notification
	for len(out) < n {
		f, err := c.Expect(ctx, func(f client.Frame) bool { return f.Type == lmp.TypeNotification && lmp.Deref(f.TaskID) == task })
		if err != nil {
			t.Fatalf("got %d of %d notifications: %v", len(out), n, err)
		}
		out = append(out, decode[lmp.Notification](t, f))
	}
	return out
}

func TestE2EApprovalRecordsChoice(t *testing.T) {
	for _, tc := range []struct{ choice, profile, keyPrefix string }{
		{lmp.ChoiceOnce, "", hermes.SessionKeyPrefix},
		{lmp.ChoiceDeny, "", hermes.SessionKeyPrefix},
		// A gateway that multiplexes profiles names the profile in the key.
		{lmp.ChoiceOnce, "work", "agent:work:loomi:dm:"},
	} {
		choice := tc.choice
		t.Run(strings.TrimSuffix(choice+" "+tc.profile, " "), func(t *testing.T) {
			st := startStack(t, func(o *reference.Options) { o.HermesProfile = tc.profile })
			c := st.phone(t)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			task := send(t, c, "", "/mock approval")
			f, err := c.ExpectType(ctx, lmp.TypeApprovalRequired)
			if err != nil {
				t.Fatal(err)
			}
			req := decode[lmp.ApprovalRequired](t, f)
			if req.Command != "rm -rf ./build" || lmp.Deref(req.TaskID) != task || len(req.Choices) != 4 || req.RunID == nil {
				t.Fatalf("approval.required = %+v", req)
			}
			rid := reqID()
			if err := c.Send(ctx, lmp.ApprovalResolve{ApprovalID: req.ApprovalID, Choice: choice, RequestID: rid}); err != nil {
				t.Fatal(err)
			}
			res, err := c.ExpectType(ctx, lmp.TypeApprovalResolved)
			if err != nil {
				t.Fatal(err)
			}
			if r := decode[lmp.ApprovalResolved](t, res); r.ApprovalID != req.ApprovalID || r.Choice != choice {
				t.Fatalf("approval.resolved = %+v", r)
			}
			fs := runFrames(t, c, task)
			done := decode[lmp.RunCompleted](t, fs[len(fs)-1])
			want := map[string]string{lmp.ChoiceOnce: "Done: ./build is removed.", lmp.ChoiceDeny: "Understood, I left ./build alone."}[choice]
			if done.Text != want {
				t.Fatalf("run ended with %q, want %q", done.Text, want)
			}
			// What the adapter told Hermes, through the driver API.
			// Session-store reads (get_session) are the adapter's lookups of
			// the sessions whose hooks it got; the calls that act are these.
			calls := driver.CallList{Calls: slices.DeleteFunc(st.calls(t), func(c driver.Call) bool { return c.Name == "get_session" })}
			if len(calls.Calls) != 2 || calls.Calls[0].Name != "handle_message" || calls.Calls[1].Name != "resolve_gateway_approval" {
				t.Fatalf("calls = %+v", calls.Calls)
			}
			ev := calls.Calls[0].Args["event"].(map[string]any)
			if ev["text"] != "/mock approval" || ev["source"].(map[string]any)["chat_id"] != task {
				t.Fatalf("handle_message = %v", ev)
			}
			a := calls.Calls[1].Args
			if a["choice"] != choice || a["request_id"] != req.ApprovalID || a["session_key"] != tc.keyPrefix+task ||
				calls.Calls[1].Result != 1.0 {
				t.Fatalf("resolve_gateway_approval = %+v", calls.Calls[1])
			}
		})
	}
}

func TestE2ECancelLongRun(t *testing.T) {
	st := startStack(t)
	c := st.phone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	task := send(t, c, "", "/mock long")
	for i := 0; i < 3; i++ {
		if _, err := c.Expect(ctx, func(f client.Frame) bool { return f.Type == lmp.TypeRunDelta && lmp.Deref(f.TaskID) == task }); err != nil {
			t.Fatal(err)
		}
	}
	started := ofType(c.Pending(), lmp.TypeRunStarted)
	var run string
	for _, f := range started {
		if lmp.Deref(f.TaskID) == task {
			run = lmp.Deref(f.RunID)
		}
	}
	if run == "" {
		t.Fatal("no run.started for the long run")
	}
	if err := c.Send(ctx, lmp.RunCancel{RunID: run}); err != nil {
		t.Fatal(err)
	}
	fs := runFrames(t, c, task)
	last := decode[lmp.RunCompleted](t, fs[len(fs)-1])
	if last.Status != lmp.RunStatusCancelled {
		t.Fatalf("long ended %+v", last)
	}
	calls := st.calls(t)
	var stop *driver.Call
	for i := range calls {
		if calls[i].Name == "interrupt_session_activity" {
			stop = &calls[i]
		}
	}
	if stop == nil || stop.Args["chat_id"] != task || stop.Args["session_key"] != hermes.SessionKeyPrefix+task {
		t.Fatalf("interrupt not recorded: %+v", calls)
	}
	// The mock's turn has stopped: a new message plays at once, not after
	// ten minutes of "long".
	send(t, c, task, "/mock notify")
	notifications(t, c, task, 2)
}

func TestE2EDriverPlaysIntoServer(t *testing.T) {
	st := startStack(t)
	c := st.phone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	// A played turn has no handle_message before it: the adapter shows it
	// in a chat whose Hermes session it knows, here from a first message.
	task := send(t, c, "", "hello")
	runFrames(t, c, task)
	pr, err := st.drv.Play(ctx, driver.PlayRequest{Scenario: "reply", TaskID: task, Wait: true})
	if err != nil || pr.SessionID == "" || pr.SessionID == task {
		t.Fatalf("play = %+v, %v", pr, err)
	}
	fs := runFrames(t, c, pr.TaskID)
	if run := expectRunShape(t, fs); run != pr.RunID {
		t.Fatalf("run %s, driver said %s", run, pr.RunID)
	}
	ar, err := st.drv.Approval(ctx, driver.ApprovalRequest{Command: "shutdown -h now", TimeoutMS: 100})
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.ExpectType(ctx, lmp.TypeApprovalResolved)
	if err != nil {
		t.Fatal(err)
	}
	if r := decode[lmp.ApprovalResolved](t, f); r.ApprovalID != ar.ApprovalID || r.Choice != "timeout" || r.DecidedBy != lmp.DecidedByTimeout {
		t.Fatalf("timed out approval = %+v", r)
	}
	if _, err := st.drv.Send(ctx, driver.SendRequest{ChatID: pr.TaskID, Content: "from cron", Metadata: map[string]any{"category": "result", "title": "t"}}); err != nil {
		t.Fatal(err)
	}
	if n := notifications(t, c, pr.TaskID, 1); n[0].Text != "from cron" {
		t.Fatalf("notification = %+v", n[0])
	}
	// What the server told Hermes about the timed-out approval: nothing.
	// Hermes timed it out itself; the adapter must not resolve it.
	for _, c := range st.calls(t) {
		if c.Name == "resolve_gateway_approval" {
			t.Fatalf("adapter resolved a timed-out approval: %+v", c)
		}
	}
}

// TestE2ERetryIsATurnOfTheChat: /retry runs the chat's last message again,
// a turn the gateway starts with no new message of the adapter's: its
// pre_llm_call names the old message, not "/retry", and the server still
// shows it as a run of the chat (note 22).
func TestE2ERetryIsATurnOfTheChat(t *testing.T) {
	st := startStack(t)
	c := st.phone(t)
	task := send(t, c, "", "hello there")
	first := runFrames(t, c, task)
	send(t, c, task, mockhermes.RetryCommand)
	again := runFrames(t, c, task)
	if lmp.Deref(again[0].RunID) == lmp.Deref(first[0].RunID) || again[0].Type != lmp.TypeRunStarted {
		t.Fatalf("/retry: frames %s after %s", types(again), types(first))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hooks, err := st.drv.Hooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var messages []any
	for _, h := range hooks.Hooks {
		if h.Name == hermes.HookPreLLMCall && h.Kwargs["platform"] == hermes.Platform && h.Kwargs["parent_session_id"] == "" {
			messages = append(messages, h.Kwargs["user_message"])
		}
	}
	if len(messages) != 2 || messages[0] != "hello there" || messages[1] != "hello there" {
		t.Fatalf("pre_llm_call user_message %v, want the first message twice", messages)
	}
}

// TestE2EGatewayTurns plays each turn the gateway shapes or starts itself
// from a phone, through lmp-server: the phone's /mock text is never the
// user_message of these turns, so the server knows their chat only from the
// session store (note 22). Every turn is one run of the chat, a fork is
// none, and a /btw answer reaches the phone once.
func TestE2EGatewayTurns(t *testing.T) {
	st := startStack(t)
	c := st.phone(t)
	for _, tc := range []struct {
		scenario string
		runs     []string // the final text of each run, "" for any
		notes    []string // notifications besides the runs
	}{
		{scenario: "quote", runs: []string{"About the message you quoted: yes, that one too."}},
		{scenario: "image", runs: []string{"The whiteboard shows a pairing flow: a QR code, a token, then a credential."}},
		{scenario: "voice", runs: []string{"Noted: the certificate, on Friday."}},
		{scenario: "process 0s", runs: []string{"The tests are running; I will tell you when they finish.", "The test suite finished: all 212 tests passed."}},
		{scenario: "followup", runs: []string{"Fixed the parser.", "Added a test for the parser."}},
		{scenario: "resume", runs: []string{"", "Resumed after the restart: steps 2 and 3 of the migration are done."}},
		{scenario: "btw", runs: []string{"Reading the changelog and writing the release notes."}, notes: []string{"You are on main."}},
		{scenario: "review", runs: []string{"Done: the answer is short, as you like it."}},
	} {
		t.Run(strings.Fields(tc.scenario)[0], func(t *testing.T) {
			task := send(t, c, "", mockhermes.MockCommand+" "+tc.scenario)
			for i, want := range tc.runs {
				fs := runFrames(t, c, task)
				expectRunShape(t, fs)
				last := fs[len(fs)-1]
				if want == "" {
					continue
				}
				if last.Type != lmp.TypeRunCompleted {
					t.Fatalf("run %d of %s: %s", i+1, tc.scenario, types(fs))
				}
				if done := decode[lmp.RunCompleted](t, last); done.Status != lmp.RunStatusCompleted || done.Text != want {
					t.Fatalf("run %d of %s ends %s %q, want completed %q", i+1, tc.scenario, done.Status, done.Text, want)
				}
			}
			for i, n := range notifications(t, c, task, len(tc.notes)) {
				if n.Text != tc.notes[i] {
					t.Fatalf("notification %q, want %q", n.Text, tc.notes[i])
				}
			}
			// Whatever came of the scenario came before the next turn's
			// frames: no fork shown as a run, no answer twice.
			send(t, c, task, "next "+reqID())
			expectRunShape(t, runFrames(t, c, task))
			for _, f := range c.Pending() {
				if f.Type == lmp.TypeNotification && lmp.Deref(f.TaskID) == task {
					t.Fatalf("a notification more: %s", f.Payload)
				}
			}
		})
	}
}
