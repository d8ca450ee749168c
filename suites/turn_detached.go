package suites

import (
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionTurns, func(specs *conformance.Specs) {
	// A subagent runs in a session of its own whose store row records its
	// parent (parent_session_id) and the parent's chat as its origin; a
	// /background run in a bg_ session whose row names the chat too. Their
	// hooks say platform and surface "loomi". Neither is a turn of the chat:
	// that they are never shown is note 22's preferred answer, so SHOULD.
	// The spec seeds both rows through the driver and fires a whole turn in
	// each; no run frame may carry their text or their sessions.
	specs.It("H-1", rules.SHOULD, "a subagent's or a /background run's turn is no run, though its row names the chat (note 22)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		own := newTurn(ctx, c)
		marker := should.NewID("detached text ")
		sub := turn{hermesTask: should.NewID("sa-"), session: should.NewID("20261201_101502_"), id: should.NewID("turn_sub_"),
			parent: own.session, message: "summarise the logs", first: true}
		bg := turn{session: hermes.BackgroundSessionPrefix + should.NewID(""), id: should.NewID("turn_bg_"),
			message: "summarise the logs", first: true}
		for _, t := range []turn{sub, bg} {
			_, err := drv(ctx).Session(ctx, driver.SessionRequest{TaskID: own.task, SessionID: t.session, ParentSessionID: t.parent})
			must.Succeed(err, "driver POST %s (a row of session %s whose origin is chat %s)", driver.RouteSession, t.session, own.task)
			t.start(ctx)
			t.delta(ctx, marker, lmp.DeltaKindText)
			t.end(ctx, marker, nil)
			t.sessionEnd(ctx, true, false)
		}
		var soft must.Soft
		for _, f := range afterMarker(ctx, c) {
			if !strings.HasPrefix(f.Type, "run.") {
				continue
			}
			soft.That(!strings.Contains(string(f.Payload), marker), "a detached turn's text reached the phone: %s", c.Describe(f))
			for name, s := range map[string]string{"subagent": sub.session, "/background": bg.session} {
				soft.That(!strings.Contains(string(f.Payload), s), "the %s turn (session %s) reached the phone: %s", name, s, c.Describe(f))
			}
		}
		soft.Done()
	}, conformance.NeedsDriver)

	// on_session_end says how the turn ended: failed=true and a
	// turn_exit_reason when it failed, also when no model call reported an
	// error (a context overflow, a tool loop cut short). The run ends when
	// its turn ends (note 17), and a failed turn's run ends failed: run.failed
	// or run.completed{status:"failed"} (§4; note 6 lets a server send one or
	// both). Preferred answers, so SHOULD.
	specs.It("H-1,F-4", rules.SHOULD, "a turn that on_session_end reports failed ends its run failed (notes 17, 22)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Type(lmp.TypeRunStarted).And(match.Field("session_id", t.session))))
		t.delta(ctx, "Reading the whole repository", lmp.DeltaKindText)
		t.end(ctx, "Reading the whole repository", nil)
		t.sessionEndFor(ctx, false, false, "error(context_overflow)")
		end := must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
		switch end.Type {
		case lmp.TypeRunFailed:
		case lmp.TypeRunCompleted:
			done := must.Decode[lmp.RunCompleted](end)
			must.Equal("status of the run.completed that ends a failed turn", done.Status, lmp.RunStatusFailed)
		}
	}, conformance.NeedsDriver)
})
