package suites

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// Approvals asked of Hermes through the driver, held and answered.

// queued is an approval pending in Hermes, asked for through the driver.
type queued struct {
	driver.ApprovalResponse
	Command string // unique to it: its post_approval_response names it
}

// queuedApproval asks Hermes, through the driver, for an approval in task
// (a new one when empty) and waits until every device in devs sees its
// approval.required. Hermes waits a minute for it, so that it cannot time
// out while the spec runs on a loaded machine.
func queuedApproval(ctx context.Context, task string, devs ...*conformance.Conn) queued {
	ginkgo.GinkgoHelper()
	cmd := "rm -rf /tmp/" + should.NewID("q")
	res, err := drv(ctx).Approval(ctx, driver.ApprovalRequest{TaskID: task, Command: cmd, Description: "queued",
		TimeoutMS: time.Minute.Milliseconds()})
	must.Succeed(err, "driver approval in task %q", task)
	for _, d := range devs {
		must.Expect(ctx, d, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID)))
	}
	return queued{ApprovalResponse: res, Command: cmd}
}

// holdApprovalResolve has the driver hold Hermes' answer to the next
// resolve_gateway_approval of the approval's session for up to d (POST
// /hold), and returns what releases it. Call release once the spec has
// seen what it needs, and defer it too: a spec that failed still frees
// Hermes, and releasing twice is no error.
func holdApprovalResolve(ctx context.Context, a conformance.Approval, d time.Duration) (release func() error) {
	ginkgo.GinkgoHelper()
	hold, err := drv(ctx).Hold(ctx, driver.HoldRequest{Call: "resolve_gateway_approval",
		Args: map[string]any{"session_key": a.SessionKey}, TimeoutMS: d.Milliseconds()})
	must.Succeed(err, "driver hold")
	return func() error {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), conformance.Wait())
		defer cancel()
		return drv(ctx).Release(rctx, driver.ReleaseRequest(hold))
	}
}

// awaitApprovalAnswered waits until Hermes has delivered the
// post_approval_response of the approval that asked to run command in
// session key to the adapter, and returns its choice. The hook names no
// approval (hermes.md: no approval or request id kwarg), so the approval
// is told by its session key and its command, which the spec makes unique.
func awaitApprovalAnswered(ctx context.Context, sessionKey, command string) string {
	ginkgo.GinkgoHelper()
	h := eventuallyHook(ctx, "post_approval_response", func(h driver.Hook) bool {
		return h.Kwargs["session_key"] == sessionKey && h.Kwargs["command"] == command
	})
	return fmt.Sprint(h.Kwargs["choice"])
}
