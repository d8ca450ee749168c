package suites

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section("§5 Idempotency", "idempotency", func() {
	conformance.It("I-1", rules.MUST, "a repeated session.send request_id is not executed again", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		task := ownTask(ctx, c)
		text := conformance.Events().Text("notifications", 1)
		rid := should.NewID("rq-")
		must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid}, rid)
		must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid}, rid)
		got := len(executions(ctx, c, task))
		must.That(got == 1, "a session.send sent twice with one request_id produced %d notifications, want 1: the repeat was executed again", got)
	}, conformance.NeedsEvents)

	conformance.It("I-1", rules.SHOULD, "session.send is acknowledged with the resulting task_id, and a repeat gets the same acknowledgement again, verbatim (note 5)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		rid := should.NewID("rq-")
		text := conformance.Events().Text("notifications", 1)
		first := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		second := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		var soft must.Soft
		soft.That(first.Type != lmp.TypeError, "session.send was refused: %s", c.Describe(first))
		task, _ := rawPayload(first)["task_id"].(string)
		soft.That(task != "", "the acknowledgement names no task_id in its payload: %s", c.Describe(first))
		soft.Equal("the repeat's type", second.Type, first.Type)
		soft.Equal("the repeat's payload", string(second.Payload), string(first.Payload))
		soft.Done()
	}, conformance.NeedsEvents)

	conformance.It("I-1", rules.INFO, "the acknowledgement of session.send is an ack frame (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		rid := should.NewID("rq-")
		f := must.Request(ctx, c, lmp.SessionSend{Text: conformance.Events().Text("notifications", 1), RequestID: rid}, rid)
		must.Equal("type of the frame answering session.send", f.Type, lmp.TypeAck)
	}, conformance.NeedsEvents)

	conformance.It("I-1", rules.MUST, "the server remembers at least the last 256 request_ids", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		task := ownTask(ctx, c)
		text := conformance.Events().Text("notifications", 1)
		n := profile().RequestIDWindow
		prefix := should.NewID("w-")
		// One request at a time: paced, so that no consumer of the shared
		// server is flooded.
		for i := range n {
			rid := fmt.Sprintf("%s-%d", prefix, i)
			must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid}, rid)
		}
		// The oldest of the last n is still remembered.
		rid0 := prefix + "-0"
		must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid0}, rid0)
		got := len(executions(ctx, c, task))
		must.That(got == n, "%d requests and a repeat of the oldest produced %d notifications, want %d: request %s was executed twice within the window", n, got, n, rid0)
	}, conformance.NeedsEvents, ginkgo.SpecTimeout(time.Minute))

	conformance.It("I-1,H-5,F-8", rules.MUST, "a repeated approval.resolve is not executed again; the choice reaches resolve_gateway_approval unchanged", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res := newApproval(ctx, c, 0)
		rid := should.NewID("ar-")
		first := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceSession, RequestID: rid}, rid)
		must.That(first.Type != lmp.TypeError, "the first approval.resolve was refused: %s", c.Describe(first))
		second := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceSession, RequestID: rid}, rid)
		must.Equal("the repeated approval.resolve's answer (I-1, note 7: the earlier result)", string(second.Payload), string(first.Payload))
		got := eventuallyCalls(ctx, 1, "resolve_gateway_approval", argIs("request_id", res.ID))
		must.Equal("resolve_gateway_approval calls", len(got), 1)
		must.Equal("the choice passed to resolve_gateway_approval", got[0].Args["choice"], lmp.ChoiceSession)
		must.Equal("the session_key passed to resolve_gateway_approval", got[0].Args["session_key"], res.SessionKey)
	}, conformance.NeedsDriver)

	conformance.It("I-2", rules.MUST, "resolving an already resolved approval returns error already_resolved", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res := newApproval(ctx, c, 0)
		rid := should.NewID("ar-")
		must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceOnce, RequestID: rid}, rid)
		rid2 := should.NewID("ar-")
		f := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceDeny, RequestID: rid2}, rid2)
		must.That(f.Type == lmp.TypeError, "a second resolution of an approval was answered with %s, want error already_resolved", c.Describe(f))
		must.Equal("error code (I-2)", must.Decode[lmp.Error](f).Code, lmp.CodeAlreadyResolved)
	}, conformance.NeedsEvents)

	conformance.It("I-1", rules.SHOULD, "request ids are scoped per device: two devices may use the same id (note 14)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device A")
		b := must.Pair(ctx, "device B")
		rid := should.NewID("shared-")
		text := conformance.Events().Text("notifications", 1)
		_, ta := sendTrigger(ctx, a, lmp.SessionSend{Text: text, RequestID: rid})
		_, tb := sendTrigger(ctx, b, lmp.SessionSend{Text: text, RequestID: rid})
		must.That(tb != ta, "device B's request with device A's request_id got device A's result (task %s)", ta)
		must.Expect(ctx, a, match.Type(lmp.TypeNotification).And(match.Task(ta)))
		must.Expect(ctx, b, match.Type(lmp.TypeNotification).And(match.Task(tb)))
	}, conformance.NeedsEvents)
})

// ownTask creates a task for the spec alone, with one notification, and
// takes that notification from c: the requests that follow go into it, and
// only their events count.
func ownTask(ctx context.Context, c *conformance.Conn) string {
	_, task := sendTrigger(ctx, c, lmp.SessionSend{Text: conformance.Events().Text("notifications", 1)})
	must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Task(task)))
	return task
}

// executions sends one more request into task, one that starts a run,
// and returns the notifications the requests before it produced in task
// (each produces one) ahead of that run. A request executed twice produced
// two: Hermes takes a chat's messages in order, so they all came before
// the run.
func executions(ctx context.Context, c *conformance.Conn, task string) []client.Frame {
	sendTrigger(ctx, c, lmp.SessionSend{TaskID: &task, Text: conformance.Events().Text("reply", 0)})
	started := must.Expect(ctx, c, match.Task(task).And(match.Type(lmp.TypeRunStarted)))
	must.Expect(ctx, c, match.Task(task).And(match.Terminal()))
	var out []client.Frame
	for _, f := range pendingIn(c, task, match.Type(lmp.TypeNotification)) {
		if f.Seq < started.Seq {
			out = append(out, f)
		}
	}
	return out
}
