package suites

import (
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionIdempotency, func(specs *conformance.Specs) {
	specs.It("I-1", rules.MUST, "a repeated session.send request_id is not executed again", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		task := ownTask(ctx, c)
		text := conformance.Events(ctx).Text(conformance.TriggerNotifications, 1)
		rid := should.NewID("rq-")
		must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid})
		must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid})
		got, _ := executions(ctx, c, task)
		must.That(got == 1, "a session.send sent twice with one request_id produced %d notifications, want 1: the repeat was executed again", got)
	}, conformance.NeedsEvents)

	// The window belongs to the device, not to a connection: an app resends
	// a request after its connection dropped, and §5 names no connection.
	specs.It("I-1", rules.MUST, "a session.send repeated on a later connection of the same device is not executed again", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		task := ownTask(ctx, a)
		text := conformance.Events(ctx).Text(conformance.TriggerNotifications, 1)
		rid := should.NewID("rq-")
		must.Request(ctx, a, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid})
		got, seen := executions(ctx, a, task)
		must.That(got == 1, "a session.send produced %d notifications, want 1", got)
		must.Succeed(a.CloseNow(), "close the first connection")
		// Caught up to what a saw: whatever b gets comes after it.
		b := must.Connect(ctx, "device again", a.Device, &seen)
		must.Request(ctx, b, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid})
		again, _ := executions(ctx, b, task)
		must.That(again == 0, "request %s, repeated on a later connection of the device, produced %d notifications: it was executed again", rid, again)
	}, conformance.NeedsEvents)

	specs.It("I-1", rules.SHOULD, "session.send is acknowledged with its task_id, and a repeat gets the same acknowledgement (note 5)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		rid := should.NewID("rq-")
		text := conformance.Events(ctx).Text(conformance.TriggerNotifications, 1)
		first := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid})
		second := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid})
		var soft must.Soft
		soft.That(first.Type != lmp.TypeError, "session.send was refused: %s", c.Describe(first))
		task, _ := rawPayload(first)["task_id"].(string)
		soft.That(task != "", "the acknowledgement names no task_id in its payload: %s", c.Describe(first))
		soft.Equal("the repeat's type", second.Type, first.Type)
		soft.Equal("the repeat's payload", string(second.Payload), string(first.Payload))
		soft.Done()
	}, conformance.NeedsEvents)

	specs.It("I-1", rules.INFO, "the acknowledgement of session.send is an ack frame (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		f := must.Request(ctx, c, lmp.SessionSend{Text: conformance.Events(ctx).Text(conformance.TriggerNotifications, 1)})
		must.Equal("type of the frame answering session.send", f.Type, lmp.TypeAck)
	}, conformance.NeedsEvents)

	specs.It("I-1", rules.MUST, "the server remembers at least the last 256 request_ids, the newest included once the window is full", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		task := ownTask(ctx, c)
		text := conformance.Events(ctx).Text(conformance.TriggerNotifications, 1)
		n := profile(ctx).RequestIDWindow
		prefix := should.NewID("w-")
		// One request at a time: paced, so that no consumer of the shared
		// server is flooded.
		rid := func(i int) string { return fmt.Sprintf("%s-%d", prefix, i) }
		// n+1 requests overflow a window of n by one: the first is the one
		// a server may forget.
		for i := range n + 1 {
			must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid(i)})
		}
		// The oldest and the newest of the last n are still remembered.
		for _, i := range []int{1, n} {
			must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text, RequestID: rid(i)})
		}
		got, _ := executions(ctx, c, task)
		must.That(got == n+1, "%d requests and repeats of the oldest and the newest of the last %d produced %d notifications, want %d: %s or %s was executed twice within the window", n+1, n, got, n+1, rid(1), rid(n))
	}, conformance.NeedsEvents, ginkgo.SpecTimeout(time.Minute))

	specs.It("I-1,H-5,F-8", rules.MUST, "a repeated approval.resolve is not executed again: Hermes gets one resolve, its choice unchanged", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res := newApproval(ctx, c, 0)
		rid := should.NewID("ar-")
		first := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceSession, RequestID: rid})
		must.That(first.Type != lmp.TypeError, "the first approval.resolve of a pending approval was refused: %s", c.Describe(first))
		second := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceSession, RequestID: rid})
		must.Equal("the repeated approval.resolve's answer type (I-1, note 7: the earlier result)", second.Type, first.Type)
		must.Equal("the repeated approval.resolve's answer (I-1, note 7: the earlier result)", string(second.Payload), string(first.Payload))
		if conformance.Events(ctx).Source() != conformance.SourceDriver {
			conformance.NotObserved("H-5,F-8", "without --driver-url what reached resolve_gateway_approval is not seen")
		}
		hermesHalf(ctx, func() {
			got := eventuallyCalls(ctx, 1, "resolve_gateway_approval", argIs("request_id", res.ID))
			must.Equal("resolve_gateway_approval calls", len(got), 1)
			must.Equal("the choice passed to resolve_gateway_approval", got[0].Args["choice"], lmp.ChoiceSession)
			must.Equal("the session_key passed to resolve_gateway_approval", got[0].Args["session_key"], res.SessionKey)
		})
	}, conformance.NeedsEvents, conformance.DriverFirst)

	specs.It("I-2", rules.MUST, "resolving an already resolved approval returns error already_resolved", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res := newApproval(ctx, c, 0)
		must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceOnce})
		f := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceDeny})
		must.That(f.Type == lmp.TypeError, "a second resolution of an approval was answered with %s, want error already_resolved", c.Describe(f))
		must.Equal("error code (I-2)", must.Decode[lmp.Error](f).Code, lmp.CodeAlreadyResolved)
	}, conformance.NeedsEvents)

	// An approval Hermes settles without a device (answered on another
	// surface) is resolved as much as one a device won: approval.resolved
	// said so, and a device resolving it afterwards is told so too.
	specs.It("I-2", rules.MUST, "resolving an approval that Hermes resolved on another surface returns error already_resolved", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res := newApproval(ctx, c, time.Minute)
		must.Succeed(drv(ctx).Hook(ctx, driver.HookRequest{Name: "post_approval_response", Kwargs: map[string]any{
			"session_key": res.SessionKey, "request_id": res.ID, "choice": lmp.ChoiceOnce, "surface": "cli",
		}}), "hook post_approval_response")
		must.Expect(ctx, c, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ID)))
		f := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceDeny})
		must.That(f.Type == lmp.TypeError, "resolving an approval resolved on another surface was answered with %s, want error already_resolved", c.Describe(f))
		must.Equal("error code (I-2)", must.Decode[lmp.Error](f).Code, lmp.CodeAlreadyResolved)
	}, conformance.NeedsDriver)

	specs.It("I-1", rules.SHOULD, "request ids are scoped per device: two devices may use the same id (note 14)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device A")
		b := must.Pair(ctx, "device B")
		rid := should.NewID("shared-")
		text := conformance.Events(ctx).Text(conformance.TriggerNotifications, 1)
		_, ta := sendTrigger(ctx, a, lmp.SessionSend{Text: text, RequestID: rid})
		_, tb := sendTrigger(ctx, b, lmp.SessionSend{Text: text, RequestID: rid})
		must.That(tb != ta, "device B's request with device A's request_id got device A's result (task %s)", ta)
		must.Expect(ctx, a, match.Type(lmp.TypeNotification).And(match.Task(ta)))
		must.Expect(ctx, b, match.Type(lmp.TypeNotification).And(match.Task(tb)))
	}, conformance.NeedsEvents)
})
