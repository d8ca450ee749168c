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
		Expect(executions(ctx, c, task)).To(gomegaHaveLen(1), "notifications the request produced: the repeated request was executed again")
	}, conformance.NeedsEvents)

	conformance.It("I-1", rules.SHOULD, "a repeated session.send gets the earlier ack again, verbatim (note 5)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		rid := should.NewID("rq-")
		text := conformance.Events().Text("notifications", 1)
		first := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		second := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		Expect(first.Type).To(Equal(lmp.TypeAck))
		Expect(string(second.Payload)).To(Equal(string(first.Payload)))
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
		Expect(executions(ctx, c, task)).To(gomegaHaveLen(n), "notifications %d requests produced: request %s executed twice within the window", n, rid0)
	}, conformance.NeedsEvents, ginkgo.SpecTimeout(time.Minute))

	conformance.It("I-1,H-5,F-8", rules.MUST, "a repeated approval.resolve is not executed again; the choice reaches resolve_gateway_approval unchanged", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res := newApproval(ctx, c, 0)
		rid := should.NewID("ar-")
		first := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceSession, RequestID: rid}, rid)
		Expect(first.Type).To(Equal(lmp.TypeAck), "first resolve: %s", first.Raw)
		second := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceSession, RequestID: rid}, rid)
		Expect(string(second.Payload)).To(Equal(string(first.Payload)), "the repeat gets the earlier result (I-1, note 7)")
		got := eventuallyCalls(ctx, 1, "resolve_gateway_approval", argIs("request_id", res.ID))
		Expect(got).To(gomegaHaveLen(1))
		Expect(got[0].Args["choice"]).To(Equal(lmp.ChoiceSession))
		Expect(got[0].Args["session_key"]).To(Equal(res.SessionKey))
	}, conformance.NeedsDriver)

	conformance.It("I-2", rules.MUST, "resolving an already resolved approval returns error already_resolved", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res := newApproval(ctx, c, 0)
		rid := should.NewID("ar-")
		must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceOnce, RequestID: rid}, rid)
		rid2 := should.NewID("ar-")
		f := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceDeny, RequestID: rid2}, rid2)
		Expect(f.Type).To(Equal(lmp.TypeError))
		Expect(must.Decode[lmp.Error](f).Code).To(Equal(lmp.CodeAlreadyResolved))
	}, conformance.NeedsEvents)

	conformance.It("I-1", rules.SHOULD, "request ids are scoped per device: two devices may use the same id (note 14)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device A")
		b := must.Pair(ctx, "device B")
		rid := should.NewID("shared-")
		text := conformance.Events().Text("notifications", 1)
		_, ta := sendTrigger(ctx, a, lmp.SessionSend{Text: text, RequestID: rid})
		_, tb := sendTrigger(ctx, b, lmp.SessionSend{Text: text, RequestID: rid})
		Expect(tb).NotTo(Equal(ta), "device B's request got device A's result (the same task)")
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
