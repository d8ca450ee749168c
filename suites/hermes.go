package suites

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// Helpers that play the Hermes side through the driver API.

func drv(ctx context.Context) *driver.Client { return target(ctx).Driver() }

// turn is one agent turn, driven by plugin hooks exactly as Hermes fires
// them (hermes.md): pre_llm_call once, stream hooks per model call, tool
// hooks, on_session_end at the end, and the final reply through send().
// It runs in a chat of the device, in the Hermes session a real turn of
// that chat ran in, so that any adapter knows the turn as the chat's.
type turn struct {
	task, session, id string
	sender            string
}

// platform is the Loomi platform's name in Hermes: the surface and
// platform of its turns' hooks.
const platform = hermes.Platform

// newTurn opens a chat from device c the way a phone does (session.send,
// which Hermes answers with a turn of its own) and returns the next turn
// in that chat's Hermes session, whose hooks the spec fires. The frames
// of the opening turn are taken from c.
func newTurn(ctx context.Context, c *conformance.Conn) turn {
	st := askForTurn(ctx, c, "hello "+should.NewID(""))
	must.That(st.SessionID != "", "run.started of the chat's first turn names no session_id")
	takeRun(ctx, c, st.RunID)
	return turn{task: st.TaskID, session: st.SessionID, id: should.NewID("turn_"), sender: c.Device.ID}
}

// askForTurn sends text into a new task from device c and returns the
// run.started of the turn Hermes runs for it. The new task is the one the
// reply to the request names, or else the task of the next run.started.
func askForTurn(ctx context.Context, c *conformance.Conn, text string) lmp.RunStarted {
	reply := must.Request(ctx, c, lmp.SessionSend{Text: text})
	m := match.Type(lmp.TypeRunStarted)
	if task := lmp.Deref(reply.TaskID); task != "" {
		m = m.And(match.Task(task))
	}
	return must.Decode[lmp.RunStarted](must.Expect(ctx, c, m))
}

// takeRun takes the frames of run from c, up to its terminal frame.
func takeRun(ctx context.Context, c *conformance.Conn, run string) {
	must.Expect(ctx, c, match.Run(run).And(match.Terminal()))
	for _, f := range c.Pending() {
		if lmp.Deref(f.RunID) == run {
			must.Expect(ctx, c, match.Run(run))
		}
	}
}

// hook fires a plugin hook for the turn, with the stream-hook base kwargs.
func (t turn) hook(ctx context.Context, name string, kw map[string]any) {
	t.hookIn(ctx, 1, name, kw)
}

// hookIn fires a stream hook of model call (iteration) it.
func (t turn) hookIn(ctx context.Context, it int, name string, kw map[string]any) {
	base := hermes.Encode(hermes.OnStreamStart{StreamBase: hermes.StreamBase{
		TurnID: t.id, Iteration: it, SessionID: t.session,
		Model: "mock-model", Provider: "mock", Surface: platform,
	}})
	fire(ctx, name, base, kw)
}

// fireArgs fires a hook from its typed kwargs (package hermes builds them
// as Hermes does), with kw laid over them.
func fireArgs(ctx context.Context, a hermes.Args, kw map[string]any) {
	fire(ctx, a.HookName(), hermes.Encode(a), kw)
}

func fire(ctx context.Context, name string, base, kw map[string]any) {
	for k, v := range kw {
		base[k] = v
	}
	must.Succeed(drv(ctx).Hook(ctx, driver.HookRequest{Name: name, Kwargs: base}), "hook %s", name)
}

// begin is pre_llm_call, fired once per turn before its first model call.
func (t turn) begin(ctx context.Context) {
	fireArgs(ctx, hermes.PreLLMCall{
		SessionID: t.session, TaskID: t.session, TurnID: t.id, UserMessage: "go on",
		Model: "mock-model", Platform: platform, SenderID: t.sender,
	}, nil)
}

// start begins the turn and its first model call.
func (t turn) start(ctx context.Context) {
	t.begin(ctx)
	t.hook(ctx, "on_stream_start", nil)
}

func (t turn) delta(ctx context.Context, text, kind string) {
	t.hook(ctx, "on_stream_delta", map[string]any{"delta": text, "kind": kind})
}

// end is on_stream_end of model call 1: finished after a success, also
// one that asks for tools; finished=false with the error after a failure.
func (t turn) end(ctx context.Context, final string, errText any) {
	t.endCall(ctx, 1, final, errText)
}

func (t turn) endCall(ctx context.Context, it int, final string, errText any) {
	if errText != nil {
		final = ""
	}
	t.hookIn(ctx, it, "on_stream_end", map[string]any{"final_text": final, "finished": errText == nil, "error": errText})
}

func (t turn) tool(ctx context.Context, post bool, name, callID string) {
	t.toolStatus(ctx, post, name, callID, "ok")
}

func (t turn) toolStatus(ctx context.Context, post bool, name, callID, status string) {
	call := hermes.ToolCall{ToolName: name, Args: map[string]any{"path": "x"}, ToolCallID: callID,
		TaskID: t.session, SessionID: t.session, TurnID: t.id, APIRequestID: "req"}
	if !post {
		fireArgs(ctx, hermes.PreToolCall{ToolCall: call}, nil)
		return
	}
	fireArgs(ctx, hermes.PostToolCall{ToolCall: call, Result: "ok", DurationMS: 1500, Status: status}, nil)
}

// sessionEnd is on_session_end, fired at the end of every turn.
func (t turn) sessionEnd(ctx context.Context, completed, interrupted bool) {
	reason := "text_response(stop)"
	switch {
	case interrupted:
		reason = "interrupted_by_user"
	case !completed:
		reason = "error"
	}
	fireArgs(ctx, hermes.OnSessionEnd{
		SessionID: t.session, TaskID: t.session, TurnID: t.id,
		Completed: completed, Failed: !completed && !interrupted, Interrupted: interrupted,
		TurnExitReason: reason, Model: "mock-model", Platform: platform,
	}, nil)
}

// reply is the gateway's delivery of the turn's final reply through the
// adapter's send(), with metadata notify=true.
func (t turn) reply(ctx context.Context, text string) {
	res, err := drv(ctx).Send(ctx, driver.SendRequest{ChatID: t.task, Content: text, Metadata: map[string]any{"notify": true}})
	must.Succeed(err, "driver send of the final reply")
	must.That(res.Success, "the adapter's send() of the final reply: want success, got %s", sendFailure(res))
}

// sendFailure renders a failed send() result in one line.
func sendFailure(res driver.SendResponse) string {
	return fmt.Sprintf("success false, error %q, retryable %t", res.Error, res.Retryable)
}

// answer is the turn's last model call, iteration it, which streams text
// and asks for no tools, and the turn's successful end.
func (t turn) answer(ctx context.Context, it int, text string) {
	t.hookIn(ctx, it, "on_stream_start", nil)
	t.hookIn(ctx, it, "on_stream_delta", map[string]any{"delta": text, "kind": lmp.DeltaKindText})
	t.endCall(ctx, it, text, nil)
	t.complete(ctx, text)
}

// complete ends a turn that succeeded: on_session_end, then the final reply.
func (t turn) complete(ctx context.Context, text string) {
	t.sessionEnd(ctx, true, false)
	t.reply(ctx, text)
}

// notify sends a notification through the adapter's send() into chat and
// returns its unique title.
func notify(ctx context.Context, chat string) string {
	title := should.NewID("note-")
	res, err := drv(ctx).Send(ctx, driver.SendRequest{ChatID: chat, Content: "text of " + title,
		Metadata: map[string]any{"category": "result", "title": title, "source": "conformance", "requires_attention": true}})
	must.Succeed(err, "driver send of notification %s", title)
	must.That(res.Success, "the adapter's send() of notification %s: want success, got %s", title, sendFailure(res))
	return title
}

// calls returns the recorded Hermes calls named name for which keep is true.
func calls(ctx context.Context, name string, keep func(driver.Call) bool) []driver.Call {
	list, err := drv(ctx).Calls(ctx)
	must.Succeed(err, "driver calls")
	var out []driver.Call
	for _, c := range list.Calls {
		if c.Name == name && (keep == nil || keep(c)) {
			out = append(out, c)
		}
	}
	return out
}

// eventuallyCalls waits until at least n matching calls are recorded. When
// they do not come within the usual bound, the failure says how many came
// and what the calls of that name carried instead.
func eventuallyCalls(ctx context.Context, n int, name string, keep func(driver.Call) bool) []driver.Call {
	var all, got []driver.Call
	waited, ok := pollDriver(ctx, func() bool {
		all = calls(ctx, name, nil)
		got = slices.DeleteFunc(slices.Clone(all), func(c driver.Call) bool { return keep != nil && !keep(c) })
		return len(got) >= n
	})
	must.That(ok, "waiting for %d matching Hermes call(s) to %s: got %d after %s; %s",
		n, name, len(got), waited.Round(time.Millisecond), describeCalls(all))
	return got
}

// holdApprovalResolve has the driver hold Hermes' answer to the next
// resolve_gateway_approval of the approval's session for up to d (POST
// /hold), and returns what releases it. Call release once the spec has
// seen what it needs, and defer it too: a spec that failed still frees
// Hermes, and releasing twice is no error.
func holdApprovalResolve(ctx context.Context, a conformance.Approval, d time.Duration) (release func() error) {
	hold, err := drv(ctx).Hold(ctx, driver.HoldRequest{Call: "resolve_gateway_approval",
		Args: map[string]any{"session_key": a.SessionKey}, TimeoutMS: d.Milliseconds()})
	must.Succeed(err, "driver hold")
	return func() error {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), conformance.Wait())
		defer cancel()
		return drv(ctx).Release(rctx, driver.ReleaseRequest(hold))
	}
}

// pollDriver asks done every 20 ms until it reports true, for at most the
// usual bound (conformance.Wait) or until ctx ends, and says how long it
// waited and whether done came true: what the driver records (calls into
// Hermes, hooks delivered) comes on Hermes' own time.
func pollDriver(ctx context.Context, done func() bool) (time.Duration, bool) {
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !done() {
		if time.Since(start) >= conformance.Wait() {
			return time.Since(start), false
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return time.Since(start), false
		}
	}
	return time.Since(start), true
}

// maxCallsShown bounds the calls a failure lists.
const maxCallsShown = 4

// describeCalls renders recorded calls in one line, the newest last:
// handle_message(chat_id:"c1", text:"hi").
func describeCalls(cs []driver.Call) string {
	if len(cs) == 0 {
		return "no call of that name was recorded"
	}
	var out []string
	if len(cs) > maxCallsShown {
		out = append(out, fmt.Sprintf("%d older", len(cs)-maxCallsShown))
		cs = cs[len(cs)-maxCallsShown:]
	}
	for _, c := range cs {
		out = append(out, describeCall(c))
	}
	return "recorded: " + strings.Join(out, ", ")
}

// describeCall renders one call with its scalar arguments (and a
// handle_message's text), in name order.
func describeCall(c driver.Call) string {
	var args []string
	if text := messageText(c); text != "" {
		args = append(args, fmt.Sprintf("text:%q", text))
	}
	keys := make([]string, 0, len(c.Args))
	for k := range c.Args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := c.Args[k].(type) {
		case string:
			args = append(args, fmt.Sprintf("%s:%q", k, v))
		case nil:
			args = append(args, k+":null")
		case bool, float64:
			args = append(args, fmt.Sprintf("%s:%v", k, v))
		}
	}
	return c.Name + "(" + strings.Join(args, ", ") + ")"
}

// messageText reads a handle_message call's event text.
func messageText(c driver.Call) string {
	ev, _ := c.Args["event"].(map[string]any)
	s, _ := ev["text"].(string)
	return s
}

func withText(text string) func(driver.Call) bool {
	return func(c driver.Call) bool { return messageText(c) == text }
}

func argIs(name, value string) func(driver.Call) bool {
	return func(c driver.Call) bool { return fmt.Sprint(c.Args[name]) == value }
}
