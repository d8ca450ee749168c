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

// newApproval asks for an exec approval on the Hermes side and waits for
// the device to see approval.required.
func newApproval(ctx ginkgo.SpecContext, c *conformance.Conn, timeout time.Duration) (driver.ApprovalResponse, lmp.ApprovalRequired) {
	res, err := drv().Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /tmp/" + should.NewID("x"), Description: "dangerous", TimeoutMS: timeout.Milliseconds()})
	must.Succeed(err)
	req := must.Decode[lmp.ApprovalRequired](must.Expect(ctx, c, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID))))
	return res, req
}

var _ = conformance.Section("§5 Idempotency", "idempotency", func() {
	conformance.It("I-1", rules.MUST, "a repeated session.send request_id is not executed again", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		text := "/mock help " + should.NewID("")
		rid := should.NewID("rq-")
		must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		eventuallyCalls(ctx, 1, "handle_message", withText(text))
		// A later, different request proves the repeat had its chance.
		marker := "/mock help " + should.NewID("")
		rid2 := should.NewID("rq-")
		must.Request(ctx, c, lmp.SessionSend{Text: marker, RequestID: rid2}, rid2)
		eventuallyCalls(ctx, 1, "handle_message", withText(marker))
		Expect(calls(ctx, "handle_message", withText(text))).To(gomegaHaveLen(1), "the repeated request was executed again")
	}, conformance.NeedsDriver)

	conformance.It("I-1", rules.SHOULD, "a repeated session.send gets the earlier ack again, verbatim (note 5)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		rid := should.NewID("rq-")
		text := "/mock help " + should.NewID("")
		first := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		second := must.Request(ctx, c, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		Expect(first.Type).To(Equal(lmp.TypeAck))
		Expect(string(second.Payload)).To(Equal(string(first.Payload)))
	}, conformance.NeedsDriver)

	conformance.It("I-1", rules.MUST, "the server remembers at least the last 256 request_ids", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		n := profile().RequestIDWindow
		prefix := should.NewID("w-")
		text := func(i int) string { return fmt.Sprintf("/mock help %s-%d", prefix, i) }
		// One request at a time: paced, so that no consumer of the shared
		// server is flooded.
		for i := range n {
			rid := fmt.Sprintf("%s-%d", prefix, i)
			must.Request(ctx, c, lmp.SessionSend{Text: text(i), RequestID: rid}, rid)
		}
		// The oldest of the last n is still remembered.
		rid0 := prefix + "-0"
		must.Request(ctx, c, lmp.SessionSend{Text: text(0), RequestID: rid0}, rid0)
		marker := "/mock help " + should.NewID("")
		rid := should.NewID("rq-")
		must.Request(ctx, c, lmp.SessionSend{Text: marker, RequestID: rid}, rid)
		eventuallyCalls(ctx, 1, "handle_message", withText(marker))
		Expect(calls(ctx, "handle_message", withText(text(0)))).To(gomegaHaveLen(1), "request %s executed twice within the window", rid0)
	}, conformance.NeedsDriver, ginkgo.SpecTimeout(time.Minute))

	conformance.It("I-1,H-5,F-8", rules.MUST, "a repeated approval.resolve is not executed again; the choice reaches resolve_gateway_approval unchanged", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res, _ := newApproval(ctx, c, 0)
		rid := should.NewID("ar-")
		first := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceSession, RequestID: rid}, rid)
		Expect(first.Type).To(Equal(lmp.TypeAck), "first resolve: %s", first.Raw)
		second := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceSession, RequestID: rid}, rid)
		Expect(string(second.Payload)).To(Equal(string(first.Payload)), "the repeat gets the earlier result (I-1, note 7)")
		got := eventuallyCalls(ctx, 1, "resolve_gateway_approval", argIs("request_id", res.ApprovalID))
		Expect(got).To(gomegaHaveLen(1))
		Expect(got[0].Args["choice"]).To(Equal(lmp.ChoiceSession))
		Expect(got[0].Args["session_key"]).To(Equal(res.SessionKey))
	}, conformance.NeedsDriver)

	conformance.It("I-2", rules.MUST, "resolving an already resolved approval returns error already_resolved", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		res, _ := newApproval(ctx, c, 0)
		rid := should.NewID("ar-")
		must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceOnce, RequestID: rid}, rid)
		rid2 := should.NewID("ar-")
		f := must.Request(ctx, c, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceDeny, RequestID: rid2}, rid2)
		Expect(f.Type).To(Equal(lmp.TypeError))
		Expect(must.Decode[lmp.Error](f).Code).To(Equal(lmp.CodeAlreadyResolved))
	}, conformance.NeedsDriver)

	conformance.It("I-1", rules.SHOULD, "request ids are scoped per device: two devices may use the same id (note 14)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device A")
		b := must.Pair(ctx, "device B")
		rid := should.NewID("shared-")
		ta, tb := "/mock help "+should.NewID("a"), "/mock help "+should.NewID("b")
		must.Request(ctx, a, lmp.SessionSend{Text: ta, RequestID: rid}, rid)
		must.Request(ctx, b, lmp.SessionSend{Text: tb, RequestID: rid}, rid)
		eventuallyCalls(ctx, 1, "handle_message", withText(ta))
		eventuallyCalls(ctx, 1, "handle_message", withText(tb))
	}, conformance.NeedsDriver)
})
