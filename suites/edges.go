package suites

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// Boundaries and negative space of rules whose first specs check the
// plain case: each spec here states the edge it probes.

// expectFatalRefusal checks that a hello was refused the way a refusal
// is spelt whatever the codes (note 21): a fatal error, then the close.
func expectFatalRefusal(ctx context.Context, c *conformance.Conn, err error, what string) {
	Expect(err).To(gomegaHaveOccurred(), "%s got hello.ok", what)
	se, ok := should.ServerError(err)
	Expect(ok).To(BeTrue(), "%s: no error frame before the connection ended (%v)", what, err)
	Expect(se.Fatal).To(BeTrue(), "%s: error %s is not fatal, so the client is left waiting on a connection that serves nothing", what, se.Code)
	must.Closed(ctx, conformance.Wait(), c)
}

var _ = conformance.Section("§3 Pairing", "pairing", func() {
	conformance.It("P-2,P-3", rules.MUST, "the url of the pairing JSON is a WebSocket URL where its token pairs a device", func(ctx ginkgo.SpecContext) {
		pr, err := target().MintToken(ctx, 0)
		must.Succeed(err)
		opts := *target().DialOptions()
		raw, err := client.Dial(ctx, pr.URL, &opts)
		must.Succeed(err, "dial the pairing JSON's url %s", pr.URL)
		c := &conformance.Conn{Conn: raw, Name: "device via the QR url"}
		defer c.CloseNow()
		_, err = c.Hello(ctx, lmp.Hello{Token: pr.Token})
		must.Succeed(err, "pair through the pairing JSON's url %s", pr.URL)
	})

	conformance.It("P-7", rules.MUST, "a credential is fresh: not the token, not derived from it, different for every device", func(ctx ginkgo.SpecContext) {
		seen := map[string]bool{}
		for i := range 3 {
			tok := must.Token(ctx)
			c, err := should.PairWith(ctx, fmt.Sprintf("device %d", i+1), tok)
			must.Succeed(err)
			cred := c.Device.Credential
			sum := sha256.Sum256([]byte(tok))
			for name, derived := range map[string]string{
				"the token":                     tok,
				"its SHA-256 (URL-safe base64)": base64.RawURLEncoding.EncodeToString(sum[:]),
				"its SHA-256 (base64)":          base64.StdEncoding.EncodeToString(sum[:]),
				"its SHA-256 (hex)":             hex.EncodeToString(sum[:]),
			} {
				Expect(cred == derived).To(BeFalse(), "device %d's credential is %s", i+1, name)
			}
			Expect(seen[cred]).To(BeFalse(), "device %d got the credential of an earlier device", i+1)
			seen[cred] = true
		}
	})
})

var _ = conformance.Section("§3 Pairing", "pairing", func() {
	conformance.It("P-6", rules.SHOULD, "a token sent with a bare device_id, without credential, is refused too (note 9)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		c := must.Dial(ctx, "token with a bare device_id")
		_, err := c.Hello(ctx, lmp.Hello{Token: must.Token(ctx), DeviceID: a.Device.ID})
		Expect(err).To(gomegaHaveOccurred(), "a token with device_id %s paired", a.Device.ID)
	})
})

var _ = conformance.Section("§3 Authentication", "auth", func() {
	conformance.It("S-5", rules.MUST, "a revoked device's hello is refused with a fatal error, then the connection closes", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		revoke(ctx, a.Device.ID)
		c := must.Dial(ctx, "revoked device")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: a.Device.Credential})
		expectFatalRefusal(ctx, c, err, "a revoked device")
	})
})

var _ = conformance.Section("§6 Versioning", "versioning", func() {
	conformance.It("V-2", rules.MUST, "an unsupported protocol_version is refused with a fatal error, then the connection closes", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "version 2 client")
		_, err := c.Hello(ctx, lmp.Hello{ProtocolVersion: 2, Token: must.Token(ctx)})
		expectFatalRefusal(ctx, c, err, "protocol_version 2")
	})

	conformance.It("V-1", rules.MUST, "an unknown client frame type gets no answer at all: no error, and the connection keeps working", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": "future." + should.NewID("type"), "payload": map[string]any{"x": 1}})
		must.Send(ctx, c, lmp.Ping{})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
		for _, f := range c.Pending() {
			Expect(f.Type).NotTo(Equal(lmp.TypeError), "an unknown frame type was answered: %s", f.Raw)
		}
	})

	conformance.It("V-1", rules.MUST, "unknown fields in session.send and task.list payloads and envelopes are ignored: the request is served", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		rid := should.NewID("v1-")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypeSessionSend, "x_future": true,
			"payload": map[string]any{"text": "/mock help " + rid, "request_id": rid, "x_future": map[string]any{"a": 1}}})
		f := must.Expect(ctx, c, match.Request(rid))
		Expect(f.Type).NotTo(Equal(lmp.TypeError), "session.send with an unknown field was refused: %s", f.Raw)
		rid = should.NewID("v1-")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypeTaskList, "x_future": 1,
			"payload": map[string]any{"request_id": rid, "x_future": "y"}})
		f = must.Expect(ctx, c, match.Request(rid))
		Expect(f.Type).NotTo(Equal(lmp.TypeError), "task.list with an unknown field was refused: %s", f.Raw)
	})
})

var _ = conformance.Section("§4 task.list", "tasklist", func() {
	conformance.It("F-9", rules.MUST, "task.list returns exactly limit rows when more tasks exist (limit 1, 2 and 3, with and without status_filter)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		for range 5 {
			_, err := drv().Session(ctx, driver.SessionRequest{Title: "limit " + should.NewID("")})
			must.Succeed(err)
		}
		for _, filter := range []string{"", lmp.StatusFilterAll, lmp.StatusFilterLive} {
			for _, limit := range []int{1, 2, 3} {
				rid := should.NewID("tl-")
				res := must.Decode[lmp.TaskListResult](must.Request(ctx, c, lmp.TaskList{RequestID: rid, Limit: ptr(limit), StatusFilter: filter}, rid))
				Expect(res.Tasks).To(gomegaHaveLen(limit), "task.list limit %d, status_filter %q, with at least 5 live tasks", limit, filter)
			}
		}
	}, conformance.NeedsDriver)
})

var _ = conformance.Section("§5 Idempotency", "idempotency", func() {
	conformance.It("I-1", rules.MUST, "a request_id repeated on a later connection of the same device is not executed again", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		text := "/mock help " + should.NewID("")
		rid := should.NewID("rq-")
		must.Request(ctx, a, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		eventuallyCalls(ctx, 1, "handle_message", withText(text))
		must.Succeed(a.CloseNow())
		b := must.Connect(ctx, "device again", a.Device, nil)
		must.Request(ctx, b, lmp.SessionSend{Text: text, RequestID: rid}, rid)
		marker := "/mock help " + should.NewID("")
		rid2 := should.NewID("rq-")
		must.Request(ctx, b, lmp.SessionSend{Text: marker, RequestID: rid2}, rid2)
		eventuallyCalls(ctx, 1, "handle_message", withText(marker))
		Expect(calls(ctx, "handle_message", withText(text))).To(gomegaHaveLen(1), "request %s, repeated after a reconnect, was executed again", rid)
	}, conformance.NeedsDriver)
})

var _ = conformance.Section("§4 Run lifecycle", "runs", func() {
	conformance.It("F-1,F-6", rules.MUST, "a cancelled run ends with a terminal frame whose status is one of completed, failed, cancelled", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		run := startLongRun(ctx, c).Started
		must.Send(ctx, c, lmp.RunCancel{RunID: run.RunID})
		f := must.Expect(ctx, c, match.Run(run.RunID).And(match.Terminal()))
		status, _ := rawPayload(f)["status"].(string)
		Expect(status).To(gomegaBeElementOf(lmp.RunStatusCompleted, lmp.RunStatusFailed, lmp.RunStatusCancelled), "%s status", f.Type)
	}, conformance.NeedsDriver)
})

var _ = conformance.Section("§3 Multi-device", "multidevice", func() {
	conformance.It("M-3", rules.MUST, "each device gets one approval.resolved per approval, also when Hermes' hook follows a device's resolve", func(ctx ginkgo.SpecContext) {
		a, b := must.Pair(ctx, "device A"), must.Pair(ctx, "device B")
		res := newApproval(ctx, a, 0)
		must.Expect(ctx, b, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ID)))
		rid := should.NewID("ar-")
		must.Request(ctx, a, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceOnce, RequestID: rid}, rid)
		for _, d := range []*conformance.Conn{a, b} {
			must.Expect(ctx, d, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ID)))
		}
		// Hermes reports the resolution through post_approval_response too.
		must.Succeed(drv().Hook(ctx, driver.HookRequest{Name: "post_approval_response", Kwargs: map[string]any{
			"session_key": res.SessionKey, "request_id": res.ID, "choice": lmp.ChoiceOnce, "surface": "gateway",
		}}), "hook post_approval_response")
		marker := notify(ctx, should.NewID("task_cf"))
		for _, d := range []*conformance.Conn{a, b} {
			must.Expect(ctx, d, match.Type(lmp.TypeNotification).And(match.Field("title", marker)))
			for _, f := range d.Pending() {
				Expect(match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ID)).Match(f)).To(BeFalse(), "%s got approval.resolved for %s twice", d.Name, res.ID)
			}
		}
	}, conformance.NeedsDriver)

	conformance.It("H-3,M-3", rules.MUST, "an approval resolved on another surface is announced to every device with approval.resolved", func(ctx ginkgo.SpecContext) {
		a, b := must.Pair(ctx, "device A"), must.Pair(ctx, "device B")
		res := newApproval(ctx, a, time.Minute)
		must.Succeed(drv().Hook(ctx, driver.HookRequest{Name: "post_approval_response", Kwargs: map[string]any{
			"session_key": res.SessionKey, "request_id": res.ID, "choice": lmp.ChoiceDeny, "surface": "cli",
		}}), "hook post_approval_response")
		for _, d := range []*conformance.Conn{a, b} {
			must.Expect(ctx, d, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ID)))
		}
	}, conformance.NeedsDriver)
})
