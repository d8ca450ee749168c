package suites

import (
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

// Several approvals pending in one task: Hermes queues them under the
// chat's session key and releases the one a resolve names (hermes.md,
// resolve_gateway_approval's request_id), and its post_approval_response
// names no approval. Whatever an adapter does to tell which approval a
// hook answers, resolving one of them must leave the others pending.

var _ = conformance.Section(sectionApprovalQueue, func(specs *conformance.Specs) {
	specs.It("M-3,F-8", rules.MUST, "of two approvals pending in a task, resolving the newer leaves the older pending for its own choice", func(ctx ginkgo.SpecContext) {
		devs := pairN(ctx, 2)
		older := queuedApproval(ctx, "", devs...)
		newer := queuedApproval(ctx, older.TaskID, devs...)

		ans := must.Request(ctx, devs[0], lmp.ApprovalResolve{ApprovalID: newer.ApprovalID, Choice: lmp.ChoiceOnce})
		must.That(ans.Type != lmp.TypeError, "resolving the newer of two pending approvals was refused: %s", devs[0].Describe(ans))
		got := must.Decode[lmp.ApprovalResolved](must.Expect(ctx, devs[1], match.Type(lmp.TypeApprovalResolved).And(match.Approval(newer.ApprovalID))))
		must.Equal("approval.resolved choice of the newer approval (the device's, M-3)", got.Choice, lmp.ChoiceOnce)

		// Hermes fires the newer one's post_approval_response from its
		// waiter after resolve_gateway_approval has returned, so it can
		// reach the adapter after the device's next resolve. The older one
		// is resolved only once the adapter has processed that hook: it
		// must not take the hook for the older approval's answer.
		must.Equal("post_approval_response choice of the newer approval (F-8: the device's)",
			awaitApprovalAnswered(ctx, newer.SessionKey, newer.Command), lmp.ChoiceOnce)
		ans = must.Request(ctx, devs[0], lmp.ApprovalResolve{ApprovalID: older.ApprovalID, Choice: lmp.ChoiceDeny})
		must.That(ans.Type != lmp.TypeError, "resolving the older approval, still pending in Hermes, was refused: %s", devs[0].Describe(ans))
		got = must.Decode[lmp.ApprovalResolved](must.Expect(ctx, devs[1], match.Type(lmp.TypeApprovalResolved).And(match.Approval(older.ApprovalID))))
		must.Equal("approval.resolved choice of the older approval, resolved after the newer (the device's, M-3)", got.Choice, lmp.ChoiceDeny)
		calls := eventuallyCalls(ctx, 1, "resolve_gateway_approval", argIs("request_id", older.ApprovalID))
		must.That(len(calls) == 1, "resolving the older approval %s called resolve_gateway_approval %d times: %s", older.ApprovalID, len(calls), describeCalls(calls))
		must.Equal("resolve_gateway_approval choice for the older approval (F-8: unchanged)", calls[0].Args["choice"], lmp.ChoiceDeny)
	}, conformance.NeedsDriver)

	// Hermes' stream hooks reach plugins through queues, its approval hooks
	// synchronously (hermes.md): pre_approval_request can overtake the
	// turn's first on_stream_start, and it is the first hook of a turn
	// whose pre_llm_call named no chat of the adapter's. Its turn_id names
	// the turn all the same. The run an approval belongs to is a preferred
	// answer (note 17: a run is a turn), so SHOULD.
	specs.It("H-3", rules.SHOULD, "an approval that is the first hook of its turn belongs to that turn's run (note 17)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		res, err := drv(ctx).Approval(ctx, driver.ApprovalRequest{TaskID: t.task, TurnID: t.id, ToolCallID: "call_early",
			Command: "rm -rf /tmp/" + should.NewID("early"), Description: "before the stream", TimeoutMS: time.Minute.Milliseconds()})
		must.Succeed(err)
		req := must.Decode[lmp.ApprovalRequired](must.Expect(ctx, c, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID))))
		must.That(lmp.Deref(req.RunID) != "", "approval.required of a turn whose approval came first has run_id null")
		t.hook(ctx, "on_stream_start", nil)
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(t.task).And(match.Type(lmp.TypeRunStarted))))
		must.Equal("approval.required run_id (its turn's run.started's)", lmp.Deref(req.RunID), st.RunID)
		must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceDeny})
		t.end(ctx, "Not deleted.", nil)
		t.complete(ctx, "Not deleted.")
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
	}, conformance.NeedsDriver)
})
