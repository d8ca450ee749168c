package suites

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
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

// Boundaries and negative space of rules whose first specs check the
// plain case: each spec here states the edge it probes.

var _ = conformance.Section(sectionPairing, func(specs *conformance.Specs) {
	specs.It("P-2,P-3", rules.MUST, "the url of the pairing JSON is a WebSocket URL where its token pairs a device", func(ctx ginkgo.SpecContext) {
		pr, err := target(ctx).MintToken(ctx, 0)
		must.Succeed(err)
		_, err = should.PairOn(ctx, "device via the QR url", pr.Token, func(ctx context.Context) (*conformance.Conn, error) {
			return conformance.DialAt(ctx, "device via the QR url", pr.URL, nil)
		})
		must.Succeed(err, "pair through the pairing JSON's url %s", pr.URL)
	})

	specs.It("P-7", rules.MUST, "a credential is fresh: not the token, not derived from it, different for every device", func(ctx ginkgo.SpecContext) {
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
				must.That(cred != derived, "device %d's credential is %s", i+1, name)
			}
			must.That(!seen[cred], "device %d got the credential of an earlier device", i+1)
			seen[cred] = true
		}
	})
})

var _ = conformance.Section(sectionPairing, func(specs *conformance.Specs) {
	specs.It("P-6", rules.SHOULD, "a token sent with a bare device_id, without credential, is refused too (note 9)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		c := must.Dial(ctx, "token with a bare device_id")
		_, err := c.Hello(ctx, lmp.Hello{Token: must.Token(ctx), DeviceID: a.Device.ID})
		must.That(err != nil, "a token with device_id %s paired", a.Device.ID)
	})
})

var _ = conformance.Section(sectionAuth, func(specs *conformance.Specs) {
	specs.It("S-5", rules.MUST, "a revoked device's hello is refused with a fatal error, then the connection closes", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		revoke(ctx, a.Device.ID)
		c := must.Dial(ctx, "revoked device")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: a.Device.Credential})
		expectFatalRefusal(ctx, c, err, "a revoked device")
	})
})

var _ = conformance.Section(sectionVersioning, func(specs *conformance.Specs) {
	specs.It("V-2", rules.MUST, "an unsupported protocol_version is refused with a fatal error, then the connection closes", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "version 2 client")
		_, err := c.Hello(ctx, lmp.Hello{ProtocolVersion: 2, Token: must.Token(ctx)})
		expectFatalRefusal(ctx, c, err, "protocol_version 2")
	})

	specs.It("V-1", rules.MUST, "an unknown client frame type gets no answer at all: no error, and the connection keeps working", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": "future." + should.NewID("type"), "payload": map[string]any{"x": 1}})
		must.Send(ctx, c, lmp.Ping{})
		must.Expect(ctx, c, match.Type(lmp.TypePong))
		for _, f := range c.Pending() {
			must.That(f.Type != lmp.TypeError, "an unknown frame type was answered: %s", c.Describe(f))
		}
	})

	specs.It("V-1", rules.MUST, "unknown fields in payloads and envelopes of session.send and task.list are ignored", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		rid := should.NewID("v1-")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypeSessionSend, "x_future": true,
			"payload": map[string]any{"text": "/mock help " + rid, "request_id": rid, "x_future": map[string]any{"a": 1}}})
		f := must.Expect(ctx, c, match.Answer(rid))
		must.That(f.Type != lmp.TypeError, "session.send with an unknown field was refused: %s", c.Describe(f))
		rid = should.NewID("v1-")
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypeTaskList, "x_future": 1,
			"payload": map[string]any{"request_id": rid, "x_future": "y"}})
		f = must.Expect(ctx, c, match.Answer(rid, lmp.TypeTaskListResult))
		must.That(f.Type != lmp.TypeError, "task.list with an unknown field was refused: %s", c.Describe(f))
	})
})

var _ = conformance.Section(sectionTaskList, func(specs *conformance.Specs) {
	// status_filter's words are the reference server's (note 21): the
	// tasklist section observes them at INFO.
	specs.It("F-9", rules.MUST, "task.list returns exactly limit rows when more tasks exist (limit 1, 2, 3 and 7)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		for range 8 {
			_, err := drv(ctx).Session(ctx, driver.SessionRequest{Title: "limit " + should.NewID("")})
			must.Succeed(err)
		}
		for _, limit := range []int{1, 2, 3, 7} {
			rows := listTasks(ctx, c, limit, "")
			must.That(len(rows) == limit, "task.list with limit %d returned %d rows, with at least 8 tasks in the store", limit, len(rows))
		}
	}, conformance.NeedsDriver)
})

var _ = conformance.Section(sectionIdempotency, func(specs *conformance.Specs) {
	specs.It("I-1", rules.MUST, "a request_id repeated on a later connection of the same device is not executed again", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		text := "/mock help " + should.NewID("")
		rid := should.NewID("rq-")
		must.Request(ctx, a, lmp.SessionSend{Text: text, RequestID: rid})
		eventuallyCalls(ctx, 1, "handle_message", withText(text))
		must.Succeed(a.CloseNow())
		b := must.Connect(ctx, "device again", a.Device, nil)
		must.Request(ctx, b, lmp.SessionSend{Text: text, RequestID: rid})
		marker := "/mock help " + should.NewID("")
		must.Request(ctx, b, lmp.SessionSend{Text: marker})
		eventuallyCalls(ctx, 1, "handle_message", withText(marker))
		got := len(calls(ctx, "handle_message", withText(text)))
		must.That(got == 1, "request %s, repeated after a reconnect, was executed %d times", rid, got)
	}, conformance.NeedsDriver)
})

var _ = conformance.Section(sectionIdempotency, func(specs *conformance.Specs) {
	specs.It("I-1", rules.MUST, "once the request_id window is full, the newest request_id is still remembered", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		n := profile(ctx).RequestIDWindow
		prefix := should.NewID("wn-")
		text := func(i int) string { return fmt.Sprintf("/mock help %s-%d", prefix, i) }
		// All in one chat: the window is the device's, whatever the task.
		task := should.NewID("task_")
		for i := range n + 1 {
			rid := fmt.Sprintf("%s-%d", prefix, i)
			must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text(i), RequestID: rid})
		}
		last := fmt.Sprintf("%s-%d", prefix, n)
		must.Request(ctx, c, lmp.SessionSend{TaskID: &task, Text: text(n), RequestID: last})
		marker := "/mock help " + should.NewID("")
		must.Request(ctx, c, lmp.SessionSend{Text: marker})
		eventuallyCalls(ctx, 1, "handle_message", withText(marker))
		got := len(calls(ctx, "handle_message", withText(text(n))))
		must.That(got == 1, "request %s, the newest of %d request_ids, sent twice: executed %d times, want once", last, n+1, got)
	}, conformance.NeedsDriver, ginkgo.SpecTimeout(time.Minute))
})

var _ = conformance.Section(sectionRuns, func(specs *conformance.Specs) {
	specs.It("F-1,F-6", rules.MUST, "a cancelled run ends with a terminal frame whose status is one of completed, failed, cancelled", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		run := startLongRun(ctx, c).Started
		must.Send(ctx, c, lmp.RunCancel{RunID: run.RunID})
		f := must.Expect(ctx, c, match.Run(run.RunID).And(match.Terminal()))
		status, _ := rawPayload(f)["status"].(string)
		must.That(slices.Contains([]string{lmp.RunStatusCompleted, lmp.RunStatusFailed, lmp.RunStatusCancelled}, status), "a cancelled run ended with %s: status is not completed, failed or cancelled", c.Describe(f))
	}, conformance.NeedsEvents)
})

var _ = conformance.Section(sectionMultiDevice, func(specs *conformance.Specs) {
	// The spec asks that the other devices get approval.resolved, not that
	// they get it once: sending it once is the reference server's choice
	// (docs/protocol.md), an INFO observation (note 21).
	specs.It("M-3", rules.INFO, "one approval.resolved per approval and device, even when Hermes' hook follows (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		a, b := must.Pair(ctx, "device A"), must.Pair(ctx, "device B")
		res := newApproval(ctx, a, 0)
		must.Expect(ctx, b, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ID)))
		must.Request(ctx, a, lmp.ApprovalResolve{ApprovalID: res.ID, Choice: lmp.ChoiceOnce})
		for _, d := range []*conformance.Conn{a, b} {
			must.Expect(ctx, d, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ID)))
		}
		// Hermes reports the resolution through post_approval_response
		// too, from the approval's waiter and on its own time: the marker
		// below counts only once the adapter has processed it.
		awaitApprovalAnswered(ctx, res.SessionKey, res.Required.Command)
		must.Succeed(drv(ctx).Hook(ctx, driver.HookRequest{Name: "post_approval_response", Kwargs: map[string]any{
			"session_key": res.SessionKey, "request_id": res.ID, "choice": lmp.ChoiceOnce, "surface": "gateway",
		}}), "hook post_approval_response")
		marker := notify(ctx, should.NewID("task_cf"))
		for _, d := range []*conformance.Conn{a, b} {
			must.Expect(ctx, d, match.Type(lmp.TypeNotification).And(match.Field("title", marker)))
			for _, f := range d.Pending() {
				must.That(!match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ID)).Match(f), "%s got approval.resolved for %s twice", d.Name, res.ID)
			}
		}
	}, conformance.NeedsDriver)

	specs.It("H-3,M-3", rules.MUST, "an approval resolved on another surface is announced to every device with approval.resolved", func(ctx ginkgo.SpecContext) {
		a, b := must.Pair(ctx, "device A"), must.Pair(ctx, "device B")
		res := newApproval(ctx, a, time.Minute)
		must.Succeed(drv(ctx).Hook(ctx, driver.HookRequest{Name: "post_approval_response", Kwargs: map[string]any{
			"session_key": res.SessionKey, "request_id": res.ID, "choice": lmp.ChoiceDeny, "surface": "cli",
		}}), "hook post_approval_response")
		for _, d := range []*conformance.Conn{a, b} {
			must.Expect(ctx, d, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ID)))
		}
	}, conformance.NeedsDriver)
})
