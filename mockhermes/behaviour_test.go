package mockhermes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// hooksNamed returns the kwargs of every hook named name, in order.
func hooksNamed(evs []event, name string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e.Kind == "hook" && e.Name == name {
			out = append(out, e.Kwargs)
		}
	}
	return out
}

func index(evs []event, pred func(event) bool) int {
	for i, e := range evs {
		if pred(e) {
			return i
		}
	}
	return -1
}

func isHook(name string) func(event) bool {
	return func(e event) bool { return e.Kind == "hook" && e.Name == name }
}

// TestBusyInputInterrupts: a message to a chat whose turn is running stops
// that turn (interrupted, no /stop: no agent_loop_stopped, no
// interrupt_session_activity) and runs next, in the same session.
func TestBusyInputInterrupts(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	if err := m.HandleMessage(ctx, msg("c1", "/mock long")); err != nil {
		t.Fatal(err)
	}
	f.waitHook(t, "on_stream_delta", 2)
	if err := m.HandleMessage(ctx, msg("c1", "hello again")); err != nil {
		t.Fatal(err)
	}
	evs := f.waitFor(t, "both turns", func(evs []event) bool { return count(evs, "on_session_end") == 2 })
	ends := hooksNamed(evs, "on_session_end")
	if ends[0]["interrupted"] != true || ends[0]["completed"] != false || ends[1]["completed"] != true {
		t.Fatalf("on_session_end = %v / %v", ends[0], ends[1])
	}
	pres := hooksNamed(evs, "pre_llm_call")
	if len(pres) != 2 || pres[0]["turn_id"] == pres[1]["turn_id"] || pres[0]["session_id"] != pres[1]["session_id"] ||
		pres[1]["is_first_turn"] != false || pres[1]["user_message"] != "hello again" {
		t.Fatalf("pre_llm_call = %v / %v", pres[0], pres[1])
	}
	if hist := pres[1]["conversation_history"].([]any); len(hist) != 1 || hist[0].(map[string]any)["content"] != "/mock long" {
		t.Fatalf("conversation_history = %v", hist)
	}
	if count(evs, "agent_loop_stopped") != 0 || count(evs, "interrupt") != 0 {
		t.Fatalf("a busy interrupt is no /stop: %s", compact(evs))
	}
}

// TestBusyInputQueueMode: with display.busy_input_mode queue the message
// waits for the running turn.
func TestBusyInputQueueMode(t *testing.T) {
	m, f := newTestMock(t, Options{BusyInputMode: BusyQueue})
	ctx := context.Background()
	for _, text := range []string{"first", "second"} {
		if err := m.HandleMessage(ctx, msg("c1", text)); err != nil {
			t.Fatal(err)
		}
	}
	evs := f.waitFor(t, "both turns", func(evs []event) bool { return count(evs, "on_session_end") == 2 })
	for _, e := range hooksNamed(evs, "on_session_end") {
		if e["completed"] != true {
			t.Fatalf("a queued message interrupted: %v", e)
		}
	}
	if err := CheckOptions(Options{BusyInputMode: "steer"}); err == nil || !strings.Contains(err.Error(), "steer") {
		t.Fatalf("CheckOptions(steer) = %v", err)
	}
}

// TestUnknownUsersRefused: Hermes refuses senders its allow-list does not
// name; the message is recorded and answered, and starts no turn.
func TestUnknownUsersRefused(t *testing.T) {
	m, f := newTestMock(t, Options{AllowUser: func(src hermes.SessionSource) bool { return src.UserID == "dev_ok" }})
	ctx := context.Background()
	if err := m.HandleMessage(ctx, msg("c1", "hi")); err != nil {
		t.Fatal(err)
	}
	evs := f.waitFor(t, "the refusal", func(evs []event) bool { return count(evs, "send") == 1 })
	if !strings.Contains(evs[0].Text, "recognise") || count(evs, "pre_llm_call") != 0 {
		t.Fatalf("refusal = %s %q", compact(evs), evs[0].Text)
	}
	ok := msg("c1", "hi")
	ok.Source.UserID = "dev_ok"
	if err := m.HandleMessage(ctx, ok); err != nil {
		t.Fatal(err)
	}
	f.waitHook(t, "on_session_end", 1)
	if calls := m.Calls(); len(calls) != 2 || calls[0].Name != "handle_message" {
		t.Fatalf("calls = %+v", calls)
	}
	// Hermes' default: nobody is allowed.
	m2 := New(Options{})
	defer m2.Close()
	f2 := &fakeAdapter{}
	m2.Attach(f2)
	if err := m2.HandleMessage(ctx, msg("c1", "hi")); err != nil {
		t.Fatal(err)
	}
	f2.waitFor(t, "the refusal", func(evs []event) bool { return count(evs, "send") == 1 })
}

// TestThreeIdentities: chat id, session key and session id are different
// strings; hooks carry the session id (task_id == session_id); /new rolls
// the chat over to a new session id and ends the old row.
func TestThreeIdentities(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	if err := m.HandleMessage(ctx, msg("chat-7", "one")); err != nil {
		t.Fatal(err)
	}
	// The chat is idle only once its turn has sent the final reply and
	// ended, a little after on_session_end: a /new before that stops a
	// running turn, and its agent_loop_stopped may come after the answer.
	f.waitFor(t, "the first turn's end", func([]event) bool { return m.current("chat-7") == nil })
	s1 := m.SessionOf("chat-7")
	if !sessionIDPattern.MatchString(s1) || s1 == "chat-7" || s1 == SessionKey("chat-7") || SessionKey("chat-7") != "agent:main:loomi:dm:chat-7" {
		t.Fatalf("identities: chat chat-7, key %s, session %s", SessionKey("chat-7"), s1)
	}
	for _, e := range f.snapshot() {
		if e.Kind != "hook" {
			continue
		}
		if e.Kwargs["session_id"] != s1 || (e.Kwargs["task_id"] != nil && e.Kwargs["task_id"] != s1) {
			t.Fatalf("%s carries session %v task %v, want %s", e.Name, e.Kwargs["session_id"], e.Kwargs["task_id"], s1)
		}
	}
	if err := m.HandleMessage(ctx, msg("chat-7", "/new")); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "the /new answer", func(evs []event) bool { return strings.Contains(evs[len(evs)-1].Text, "New session") })
	s2 := m.SessionOf("chat-7")
	if s2 == s1 || !sessionIDPattern.MatchString(s2) {
		t.Fatalf("/new kept session %s (now %s)", s1, s2)
	}
	if err := m.HandleMessage(ctx, msg("chat-7", "two")); err != nil {
		t.Fatal(err)
	}
	evs := f.waitHook(t, "on_session_end", 2)
	pre := hooksNamed(evs, "pre_llm_call")[1]
	if pre["session_id"] != s2 || pre["is_first_turn"] != true || len(pre["conversation_history"].([]any)) != 0 {
		t.Fatalf("turn after /new: %v", pre)
	}
	rows, _ := m.ListSessions(ctx, hermes.ListSessionsOptions{})
	ended := map[string]bool{}
	for _, r := range rows {
		ended[r.ID] = r.EndedAt != nil
	}
	if !ended[s1] || ended[s2] {
		t.Fatalf("rows after /new: %v", ended)
	}
}

// TestNewDuringTurn: /new stops the running turn with
// agent_loop_stopped(invalidation_reason="new_command").
func TestNewDuringTurn(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	if err := m.HandleMessage(ctx, msg("c1", "/mock long")); err != nil {
		t.Fatal(err)
	}
	f.waitHook(t, "on_stream_delta", 1)
	if err := m.HandleMessage(ctx, msg("c1", "/new")); err != nil {
		t.Fatal(err)
	}
	evs := f.waitHook(t, "agent_loop_stopped", 1)
	if kw := hooksNamed(evs, "agent_loop_stopped")[0]; kw["invalidation_reason"] != "new_command" || kw["session_key"] != SessionKey("c1") {
		t.Fatalf("agent_loop_stopped = %v", kw)
	}
}

// TestStopIsAMessage: /stop arrives through handle_message; the gateway
// calls the adapter's interrupt_session_activity before the turn winds
// down, then fires agent_loop_stopped and answers.
func TestStopIsAMessage(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	if err := m.HandleMessage(ctx, msg("c1", "/mock long")); err != nil {
		t.Fatal(err)
	}
	f.waitHook(t, "on_stream_delta", 2)
	if err := m.HandleMessage(ctx, msg("c1", "/stop")); err != nil {
		t.Fatal(err)
	}
	evs := f.waitFor(t, "the stop answer", func(evs []event) bool {
		return count(evs, "agent_loop_stopped") == 1 && strings.Contains(evs[len(evs)-1].Text, "Stopped")
	})
	in, end, stopped := index(evs, func(e event) bool { return e.Kind == "interrupt" }), index(evs, isHook("on_session_end")), index(evs, isHook("agent_loop_stopped"))
	if in < 0 || end < in || stopped < end {
		t.Fatalf("order: %s", compact(evs))
	}
	if evs[in].ChatID != "c1" || evs[in].Text != SessionKey("c1") {
		t.Fatalf("interrupt_session_activity(%s, %s)", evs[in].Text, evs[in].ChatID)
	}
	kw := evs[stopped].Kwargs
	if kw["reason"] != "user_stop" || kw["invalidation_reason"] != "stop_command" || kw["platform"] != "loomi" {
		t.Fatalf("agent_loop_stopped = %v", kw)
	}
	if e := hooksNamed(evs, "on_session_end")[0]; e["interrupted"] != true {
		t.Fatalf("on_session_end = %v", e)
	}
	var names []string
	for _, c := range m.Calls() {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "handle_message handle_message interrupt_session_activity" {
		t.Fatalf("calls = %v", names)
	}
}

// TestChatIdleOnceATurnIsDone: a turn that has ended no longer runs in its
// chat. Whoever sees its playback done (a /stop that waited for it, to fire
// agent_loop_stopped and answer) must find the chat idle, so that a /stop
// right after only answers "No active task to stop." instead of
// interrupting the turn that already ended.
func TestChatIdleOnceATurnIsDone(t *testing.T) {
	m, _ := newTestMock(t, Options{})
	for i := range 50 {
		chat := fmt.Sprintf("c%d", i)
		pb, err := m.Play(context.Background(), "reply", nil, chat)
		if err != nil {
			t.Fatal(err)
		}
		waitDone(t, pb)
		if cur := m.current(chat); cur == pb {
			t.Fatalf("turn %d: its playback is done, yet the chat still runs it", i)
		}
	}
}

// TestPromptOutcomes: the supports_exec_approval_buttons() gate and the
// outcomes of the prompt wait.
func TestPromptOutcomes(t *testing.T) {
	ctx := context.Background()
	spec := ApprovalSpec{ChatID: "c", Command: "rm -rf x", Description: "delete", AllowPermanent: true, AllowSession: true, Timeout: time.Minute}

	t.Run("no buttons: a text prompt", func(t *testing.T) {
		m, f := newTestMock(t, Options{})
		f.noButtons = true
		if _, err := m.StartApproval(ctx, spec); err != nil {
			t.Fatal(err)
		}
		evs := f.snapshot()
		if count(evs, "prompt") != 0 || evs[1].Kind != "send" || evs[1].Meta["is_approval_prompt"] != true || !strings.Contains(evs[1].Text, "rm -rf x") {
			t.Fatalf("events = %s", compact(evs))
		}
	})
	t.Run("failed: a text fallback, the wait goes on", func(t *testing.T) {
		m, f := newTestMock(t, Options{})
		f.promptErr = errors.New("offline")
		ap, err := m.StartApproval(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		evs := f.snapshot()
		if compact(evs) != "pre_approval_request prompt send" || evs[2].Meta["is_approval_prompt"] != true {
			t.Fatalf("events = %s", compact(evs))
		}
		if len(m.Pending(ap.SessionKey())) != 1 {
			t.Fatal("the approval is no longer pending")
		}
	})
	t.Run("failed and the fallback failed: notify_failed", func(t *testing.T) {
		m, f := newTestMock(t, Options{})
		f.promptErr, f.sendFails = errors.New("offline"), true
		ap, err := m.StartApproval(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if c := ap.Wait(ctx); c != ChoiceNotifyFailed || Granted(c) {
			t.Fatalf("outcome = %q", c)
		}
		post := hooksNamed(f.snapshot(), "post_approval_response")
		if len(post) != 1 || post[0]["choice"] != "notify_failed" || len(m.Pending(ap.SessionKey())) != 0 {
			t.Fatalf("post = %v", post)
		}
	})
	t.Run("no answer in time: possibly delivered", func(t *testing.T) {
		m, f := newTestMock(t, Options{PromptTimeout: 20 * time.Millisecond})
		f.promptBlock = make(chan struct{})
		defer close(f.promptBlock)
		ap, err := m.StartApproval(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if count(f.snapshot(), "send") != 0 {
			t.Fatal("a possibly delivered prompt got a fallback")
		}
		if n, _ := m.ResolveGatewayApproval(ctx, ap.SessionKey(), "once", false, "", ap.ID()); n != 1 {
			t.Fatalf("resolved %d", n)
		}
		if c := ap.Wait(ctx); c != "once" {
			t.Fatalf("outcome = %q", c)
		}
	})
}

// TestApprovalCancelledWhenTurnEnds: an approval of a turn still waiting
// when the turn ends is cancelled with cause turn_ended. The turn's delta
// callback is held until the approval has started, so the turn cannot end
// before it.
func TestApprovalCancelledWhenTurnEnds(t *testing.T) {
	m, f := newTestMock(t, Options{})
	if err := m.LoadScriptBytes("brief.yaml", []byte("name: brief\nsteps:\n  - stream: thinking\n")); err != nil {
		t.Fatal(err)
	}
	streaming, started := make(chan struct{}), make(chan struct{})
	var streamOnce, startOnce sync.Once
	release := func() { startOnce.Do(func() { close(started) }) }
	t.Cleanup(release) // before the mock's Close, which waits for the turn
	f.hookGate = func(name string, _ map[string]any) {
		if name == "on_stream_delta" {
			streamOnce.Do(func() { close(streaming); <-started })
		}
	}
	pb := play(t, m, "brief")
	select {
	case <-streaming:
	case <-time.After(time.Minute):
		t.Fatal("the turn streamed nothing")
	}
	ap, err := m.StartApproval(context.Background(), ApprovalSpec{ChatID: pb.TaskID, Command: "reboot", TurnID: pb.TurnID, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	release()
	if c := ap.Wait(context.Background()); c != ChoiceCancelled {
		t.Fatalf("outcome = %q", c)
	}
	post := hooksNamed(f.snapshot(), "post_approval_response")
	if len(post) != 1 || post[0]["cancelled"] != CancelTurnEnded || post[0]["turn_id"] != pb.TurnID {
		t.Fatalf("post = %v", post)
	}
}

// TestCrosstalk: beside a Loomi turn that calls tools, a Telegram turn and
// a subagent's turn reach the adapter's hooks, never its send(); the
// session store lists the Telegram row but not the subagent's child row.
func TestCrosstalk(t *testing.T) {
	m, f := newTestMock(t, Options{Crosstalk: true})
	pb := play(t, m, "tools")
	waitDone(t, pb)
	evs := f.waitFor(t, "three turns", func(evs []event) bool { return count(evs, "on_session_end") == 3 })
	bySurface := map[string]map[any]bool{}
	for _, kw := range hooksNamed(evs, "on_stream_start") {
		s := kw["surface"].(string)
		if bySurface[s] == nil {
			bySurface[s] = map[any]bool{}
		}
		bySurface[s][kw["session_id"]] = true
	}
	if len(bySurface["telegram"])+len(bySurface["cli"]) != 1 || len(bySurface["loomi"]) != 2 || !bySurface["loomi"][pb.SessionID] {
		t.Fatalf("sessions by surface = %v", bySurface)
	}
	for _, e := range evs {
		if e.Kind == "send" && e.ChatID != pb.TaskID {
			t.Fatalf("another agent's reply reached this adapter: %+v", e)
		}
	}
	if n := count(evs, "send"); n != 1 {
		t.Fatalf("%d sends, want the Loomi turn's final reply only", n)
	}
	rows, _ := m.ListSessions(context.Background(), serverListAll())
	sources := map[string]int{}
	for _, r := range rows {
		sources[r.Source]++
	}
	if sources["telegram"]+sources["cli"] != 1 || sources["loomi"] != 1 {
		t.Fatalf("rows by source = %v (the subagent's child row must not be listed)", sources)
	}
}

// TestGrantsAreRemembered: "session" grants the pattern for the rest of
// the session and "always" for good; such a command runs without asking
// (no approval hooks, no prompt). The driver's own approvals always ask.
func TestGrantsAreRemembered(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	answer := func(chat, choice string) {
		t.Helper()
		pb, err := m.Play(ctx, "approval", nil, chat)
		if err != nil {
			t.Fatal(err)
		}
		f.waitFor(t, "the prompt", func(evs []event) bool { return len(m.Pending(SessionKey(chat))) == 1 })
		if n, _ := m.ResolveGatewayApproval(ctx, SessionKey(chat), choice, false, "", ""); n != 1 {
			t.Fatalf("resolved %d", n)
		}
		waitDone(t, pb)
	}
	asks := func(chat string) bool {
		t.Helper()
		before := count(f.snapshot(), "pre_approval_request")
		pb, err := m.Play(ctx, "approval", nil, chat)
		if err != nil {
			t.Fatal(err)
		}
		f.waitFor(t, "a prompt or the end", func(evs []event) bool {
			select {
			case <-pb.Done():
				return true
			default:
				return count(evs, "pre_approval_request") > before
			}
		})
		asked := count(f.snapshot(), "pre_approval_request") > before
		if asked {
			m.ResolveGatewayApproval(ctx, SessionKey(chat), "deny", false, "", "")
		}
		waitDone(t, pb)
		return asked
	}
	answer("a", "session")
	if asks("a") || !asks("b") {
		t.Fatal("a session grant is not remembered for its session only")
	}
	ap, err := m.StartApproval(ctx, ApprovalSpec{ChatID: "a", Command: "rm -rf ./build", PatternKey: "recursive delete", Timeout: time.Minute})
	if err != nil || len(m.Pending(ap.SessionKey())) != 1 {
		t.Fatalf("a driver approval did not ask: %v", err)
	}
	m.ResolveGatewayApproval(ctx, ap.SessionKey(), "deny", false, "", "")
	answer("c", "always")
	if asks("d") {
		t.Fatal("an always grant is not remembered")
	}
}

// TestInterleaveHasNoOrderAcrossHooks: with Hermes' per-hook workers a
// blocked on_stream_delta callback does not hold back on_stream_end, and
// within one hook the order is kept. The first delta's callback is held
// until on_stream_end's callback has begun; with one worker for every hook
// on_stream_end would never begin and the delta would time out. The order
// of the recorded events is not checked: on_stream_end is recorded after
// its callback returns, so a released delta may be recorded first.
func TestInterleaveHasNoOrderAcrossHooks(t *testing.T) {
	ended := make(chan struct{})
	var once sync.Once
	m, f := newTestMock(t, Options{Faults: Faults{Interleave: true}})
	f.hookGate = func(name string, kw map[string]any) {
		switch name {
		case "on_stream_end":
			once.Do(func() { close(ended) })
		case "on_stream_delta":
			select {
			case <-ended:
			case <-time.After(hangGuard):
				t.Error("on_stream_end was held back behind on_stream_delta")
			}
		}
	}
	waitDone(t, play(t, m, "fail"))
	evs := f.waitFor(t, "every delta and the stream's end", func(evs []event) bool {
		return count(evs, "on_stream_delta") == 2 && count(evs, "on_stream_end") == 1
	})
	var text strings.Builder
	for _, kw := range hooksNamed(evs, "on_stream_delta") {
		text.WriteString(kw["delta"].(string))
	}
	if text.String() != "Working on it" {
		t.Fatalf("deltas out of order: %q", text.String())
	}
}

// TestBacklogDropsOldest: a callback that falls behind loses the oldest
// events of its hook once StreamQueueSize are waiting; the newest arrive.
func TestBacklogDropsOldest(t *testing.T) {
	release := make(chan struct{})
	m, f := newTestMock(t, Options{Faults: Faults{Interleave: true}})
	f.hookGate = func(name string, kw map[string]any) {
		if name == "on_stream_delta" {
			<-release
		}
	}
	n := StreamQueueSize + 200
	script := "name: flood\nsteps:\n  - stream: \"" + strings.Repeat("x", n-1) + "y\"\n    chunk: 1\n"
	if err := m.LoadScriptBytes("flood.yaml", []byte(script)); err != nil {
		t.Fatal(err)
	}
	pb := play(t, m, "flood")
	waitDone(t, pb) // the agent never waits for a plugin
	close(release)
	evs := f.waitFor(t, "the last delta", func(evs []event) bool {
		ds := hooksNamed(evs, "on_stream_delta")
		return len(ds) > 0 && ds[len(ds)-1]["delta"] == "y"
	})
	got := len(hooksNamed(evs, "on_stream_delta"))
	if got > StreamQueueSize+1 || got == n {
		t.Fatalf("%d of %d deltas delivered, want at most %d", got, n, StreamQueueSize+1)
	}
	if d := m.Dropped()["on_stream_delta"]; d+got != n {
		t.Fatalf("dropped %d + delivered %d != %d", d, got, n)
	}
}

// TestOversizePayloadDropped: Hermes drops a stream hook's payload over
// about 16 KiB whole; on_session_end is not subject to it.
func TestOversizePayloadDropped(t *testing.T) {
	m, f := newTestMock(t, Options{})
	waitDone(t, play(t, m, "oversize"))
	evs := f.snapshot()
	if count(evs, "on_stream_end") != 0 || count(evs, "on_session_end") != 1 || m.Dropped()["on_stream_end"] != 1 {
		t.Fatalf("events = %s, dropped %v", compact(evs), m.Dropped())
	}
	if last := evs[len(evs)-1]; last.Kind != "send" || len(last.Text) <= MaxStreamPayload || last.Meta["notify"] != true {
		t.Fatalf("the final reply did not go out whole: %d bytes", len(last.Text))
	}
}

// TestFaultModesPerPlayback: off by default, settable per playback; the
// duplicate mode (beyond Hermes) delivers every on_stream_end and
// post_tool_call twice.
func TestFaultModesPerPlayback(t *testing.T) {
	m, f := newTestMock(t, Options{})
	waitDone(t, play(t, m, "reply"))
	if c := count(f.snapshot(), "on_stream_end"); c != 1 {
		t.Fatalf("faults on by default: %d ends", c)
	}
	pb, err := m.PlayWith(context.Background(), "tools", nil, "", PlayOptions{Faults: Faults{Duplicate: true}})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb)
	var ends, posts int
	for _, e := range f.snapshot() {
		if e.Kwargs["turn_id"] == pb.TurnID {
			switch e.Name {
			case "on_stream_end":
				ends++
			case "post_tool_call":
				posts++
			}
		}
	}
	if ends != 6 || posts != 10 {
		t.Fatalf("duplicate: %d ends, %d posts; want 6 and 10", ends, posts)
	}
}

// TestInterruptNeverFails: a stop that lands between two chunks streamed
// without a pause ends the call unfinished, never as a failure.
func TestInterruptNeverFails(t *testing.T) {
	m, f := newTestMock(t, Options{})
	if err := m.LoadScriptBytes("fast.yaml", []byte("name: fast\nsteps:\n  - repeat: forever\n    steps:\n      - stream: abcdefgh\n        chunk: 1\n")); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		pb := play(t, m, "fast")
		f.waitFor(t, "a delta", func(evs []event) bool {
			for _, e := range evs {
				if e.Name == "on_stream_delta" && e.Kwargs["turn_id"] == pb.TurnID {
					return true
				}
			}
			return false
		})
		if err := m.Stop(pb.TaskID); err != nil {
			t.Fatal(err)
		}
		waitDone(t, pb)
		for _, e := range f.snapshot() {
			if e.Name == "on_stream_end" && e.Kwargs["turn_id"] == pb.TurnID && (e.Kwargs["error"] != nil || e.Kwargs["finished"] != false) {
				t.Fatalf("interrupted call ended as %v", e.Kwargs)
			}
		}
	}
}

// TestGatewayProfileKeys: a gateway that multiplexes profiles names the
// profile in every session key it gives the adapter; the default profile
// is main, and a profile itself named main is main~.
func TestGatewayProfileKeys(t *testing.T) {
	for profile, want := range map[string]string{
		"": "agent:main:loomi:dm:c1", "default": "agent:main:loomi:dm:c1",
		"work": "agent:work:loomi:dm:c1", "main": "agent:main~:loomi:dm:c1",
	} {
		m := New(Options{GatewayProfile: profile})
		if got := m.sessionKey("c1"); got != want {
			t.Errorf("profile %q: session key %q, want %q", profile, got, want)
		}
		m.Close()
	}
	for _, bad := range []string{"Work", "a:b", "-x", "é", strings.Repeat("a", 252)} {
		if err := CheckOptions(Options{GatewayProfile: bad}); err == nil {
			t.Errorf("CheckOptions(GatewayProfile %q) = nil, want an error", bad)
		}
	}
	for _, good := range []string{"work", "team_2", "a-b"} {
		if err := CheckOptions(Options{GatewayProfile: good}); err != nil {
			t.Errorf("CheckOptions(GatewayProfile %q) = %v", good, err)
		}
	}
}
