package suites

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/gomega"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// Helpers that play the Hermes side through the driver API.

func drv() *driver.Client { return target().Driver() }

// turn is one agent turn in a fresh task, driven by plugin hooks.
type turn struct {
	task, id string
}

func newTurn() turn { return turn{task: should.NewID("task_cf"), id: should.NewID("turn_")} }

// hook fires a plugin hook for the turn, with the stream-hook base kwargs.
func (t turn) hook(ctx context.Context, name string, kw map[string]any) {
	base := map[string]any{
		"turn_id": t.id, "iteration": 1, "session_id": t.task, "task_id": t.task,
		"model": "mock-model", "provider": "mock", "surface": "gateway",
	}
	for k, v := range kw {
		base[k] = v
	}
	must.Succeed(drv().Hook(ctx, driver.HookRequest{Name: name, Kwargs: base}), "hook %s", name)
}

func (t turn) start(ctx context.Context) { t.hook(ctx, "on_stream_start", nil) }

func (t turn) delta(ctx context.Context, text, kind string) {
	t.hook(ctx, "on_stream_delta", map[string]any{"delta": text, "kind": kind})
}

func (t turn) end(ctx context.Context, final string, errText any) {
	t.hook(ctx, "on_stream_end", map[string]any{"final_text": final, "finished": errText == nil, "error": errText})
}

func (t turn) tool(ctx context.Context, post bool, name, callID string) {
	kw := map[string]any{"tool_name": name, "args": map[string]any{"path": "x"}, "tool_call_id": callID,
		"api_request_id": "req", "middleware_trace": []any{}}
	hook := "pre_tool_call"
	if post {
		hook = "post_tool_call"
		kw["result"] = "ok"
		kw["duration_ms"] = 1500
		kw["status"] = "ok"
		kw["error_type"] = nil
		kw["error_message"] = nil
	}
	t.hook(ctx, hook, kw)
}

// notify sends a notification through the adapter's send() into chat and
// returns its unique title.
func notify(ctx context.Context, chat string) string {
	title := should.NewID("note-")
	res, err := drv().Send(ctx, driver.SendRequest{ChatID: chat, Content: "text of " + title,
		Metadata: map[string]any{"category": "result", "title": title, "source": "conformance", "requires_attention": true}})
	must.Succeed(err)
	gomega.Expect(res.Success).To(gomega.BeTrue(), "send(): %+v", res)
	return title
}

// calls returns the recorded Hermes calls named name for which keep is true.
func calls(ctx context.Context, name string, keep func(driver.Call) bool) []driver.Call {
	list, err := drv().Calls(ctx)
	must.Succeed(err)
	var out []driver.Call
	for _, c := range list.Calls {
		if c.Name == name && (keep == nil || keep(c)) {
			out = append(out, c)
		}
	}
	return out
}

// eventuallyCalls waits until at least n matching calls are recorded.
func eventuallyCalls(ctx context.Context, n int, name string, keep func(driver.Call) bool) []driver.Call {
	var got []driver.Call
	gomega.Eventually(ctx, func() int {
		got = calls(ctx, name, keep)
		return len(got)
	}).WithTimeout(10*time.Second).WithPolling(20*time.Millisecond).Should(gomega.BeNumerically(">=", n), "Hermes calls to %s", name)
	return got
}

// messageText reads a handle_message call's event text.
func messageText(c driver.Call) string {
	ev, _ := c.Args["event"].(map[string]any)
	s, _ := ev["text"].(string)
	return s
}

func argIs(name, value string) func(driver.Call) bool {
	return func(c driver.Call) bool { return fmt.Sprint(c.Args[name]) == value }
}
