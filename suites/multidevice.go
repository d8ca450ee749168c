package suites

import (
	"fmt"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

func pairN(ctx ginkgo.SpecContext, n int) []*conformance.Conn {
	out := make([]*conformance.Conn, n)
	for i := range out {
		out[i] = must.Pair(ctx, fmt.Sprintf("device %c", 'A'+i))
	}
	return out
}

var _ = conformance.Section("§3 Multi-device", "multidevice", func() {
	conformance.It("M-1", rules.MUST, "every event goes to every online device", func(ctx ginkgo.SpecContext) {
		devs := pairN(ctx, 3)
		chat := should.NewID("task_cf")
		title := notify(ctx, chat)
		var seqs []int64
		for _, d := range devs {
			f := must.Expect(ctx, d, match.Type(lmp.TypeNotification).And(match.Field("title", title)))
			seqs = append(seqs, f.Seq)
		}
		Expect(seqs).To(gomegaHaveLen(3))
	}, conformance.NeedsDriver)

	conformance.It("M-2,M-3,I-2,H-3", rules.MUST, "of N devices racing to resolve an approval exactly one wins; every device gets approval.resolved", func(ctx ginkgo.SpecContext) {
		const n = 4
		devs := pairN(ctx, n)
		res, req := newApproval(ctx, devs[0], 0)
		Expect(req.Command).NotTo(Equal(""))
		Expect(len(req.Choices)).To(BeNumerically(">", 0))
		for _, d := range devs[1:] {
			must.Expect(ctx, d, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID)))
		}
		answers := make([]client.Frame, n)
		var wg sync.WaitGroup
		for i, d := range devs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer ginkgo.GinkgoRecover()
				rid := should.NewID("race-")
				f, err := should.Request(ctx, d, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceOnce, RequestID: rid}, rid)
				must.Succeed(err)
				answers[i] = f
			}()
		}
		wg.Wait()
		acks, refused := 0, 0
		for _, f := range answers {
			switch {
			case f.Type == lmp.TypeAck:
				acks++
			case f.Type == lmp.TypeError && must.Decode[lmp.Error](f).Code == lmp.CodeAlreadyResolved:
				refused++
			}
		}
		Expect(acks).To(Equal(1), "winners")
		Expect(refused).To(Equal(n-1), "already_resolved answers")
		for _, d := range devs {
			must.Expect(ctx, d, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ApprovalID)))
		}
		Expect(calls(ctx, "resolve_gateway_approval", argIs("request_id", res.ApprovalID))).To(gomegaHaveLen(1))
	}, conformance.NeedsDriver)

	conformance.It("M-3,F-1", rules.SHOULD, "approval.resolved says decided_by remote when a device resolved it, once per approval", func(ctx ginkgo.SpecContext) {
		a, b := must.Pair(ctx, "device A"), must.Pair(ctx, "device B")
		res, _ := newApproval(ctx, a, 0)
		rid := should.NewID("ar-")
		must.Request(ctx, a, lmp.ApprovalResolve{ApprovalID: res.ApprovalID, Choice: lmp.ChoiceDeny, RequestID: rid}, rid)
		r := must.Decode[lmp.ApprovalResolved](must.Expect(ctx, b, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ApprovalID))))
		Expect(r.DecidedBy).To(Equal(lmp.DecidedByRemote))
		Expect(r.Choice).To(Equal(lmp.ChoiceDeny))
		marker := notify(ctx, should.NewID("task_cf"))
		must.Expect(ctx, b, match.Type(lmp.TypeNotification).And(match.Field("title", marker)))
		for _, f := range b.Pending() {
			Expect(f.Type == lmp.TypeApprovalResolved && match.Approval(res.ApprovalID).Match(f)).To(BeFalse(), "approval.resolved sent twice")
		}
	}, conformance.NeedsDriver)

	conformance.It("M-3,F-1", rules.SHOULD, "an approval Hermes resolves itself says decided_by agent (smart_deny) or local (another surface)", func(ctx ginkgo.SpecContext) {
		a, b := must.Pair(ctx, "device A"), must.Pair(ctx, "device B")
		// M-3: the resolution comes from Hermes' own post_approval_response,
		// not from a device; docs/protocol.md maps the choice to decided_by.
		for _, c := range []struct{ choice, surface, decidedBy string }{
			{"smart_deny", "gateway", lmp.DecidedByAgent},
			{"once", "cli", lmp.DecidedByLocal},
		} {
			res, _ := newApproval(ctx, a, time.Minute)
			must.Succeed(drv().Hook(ctx, driver.HookRequest{Name: "post_approval_response", Kwargs: map[string]any{
				"session_key": res.SessionKey, "request_id": res.ApprovalID, "choice": c.choice, "surface": c.surface,
			}}), "hook post_approval_response")
			for _, d := range []*conformance.Conn{a, b} {
				r := must.Decode[lmp.ApprovalResolved](must.Expect(ctx, d, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ApprovalID))))
				Expect(r.DecidedBy).To(Equal(c.decidedBy), "choice %s on surface %s", c.choice, c.surface)
				Expect(r.Choice).To(Equal(c.choice))
			}
		}
	}, conformance.NeedsDriver)

	conformance.It("M-3,F-1", rules.SHOULD, "an approval that times out is resolved with decided_by timeout on every device (note 15)", func(ctx ginkgo.SpecContext) {
		a, b := must.Pair(ctx, "device A"), must.Pair(ctx, "device B")
		// Hermes has one configured approval timeout and gives the adapter
		// no deadline: deadline_ts can only come from that configuration.
		timeout := target().Profile.ApprovalTimeout
		before := time.Now()
		res, req := newApproval(ctx, a, timeout)
		Expect(lmp.TimeOf(req.DeadlineTS)).To(gomega.BeTemporally("~", before.Add(timeout), 2*time.Second), "deadline_ts")
		for _, d := range []*conformance.Conn{a, b} {
			r := must.Decode[lmp.ApprovalResolved](must.Expect(ctx, d, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ApprovalID))))
			Expect(r.DecidedBy).To(Equal(lmp.DecidedByTimeout))
			Expect(r.Choice).To(Equal("timeout"))
		}
	}, conformance.NeedsDriver, conformance.Timer)
})
