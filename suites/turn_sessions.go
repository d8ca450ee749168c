package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

var _ = conformance.Section(sectionTurns, func(specs *conformance.Specs) {
	// Hermes rewrites the phone's text before pre_llm_call (a reply quote
	// in front, an image description, a voice transcript) and starts turns
	// in a chat by itself (/retry, a queued follow-up, a process notice, the
	// resume after a restart). The session store records each gateway
	// session's chat as its origin; the driver seeds such a row, and the
	// spec fires a turn in it whose user_message is no text the adapter ever
	// sent. That such a turn is the chat's is note 22's preferred answer, so
	// SHOULD.
	specs.It("H-1", rules.SHOULD, "a turn in a session whose row names a chat is that chat's run, whatever its user_message (note 22)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		chat, session := should.NewID("chat_"), should.NewID("sess_")
		_, err := drv(ctx).Session(ctx, driver.SessionRequest{TaskID: chat, SessionID: session})
		must.Succeed(err, "driver POST %s (a session row whose origin is chat %s)", driver.RouteSession, chat)
		// No sender_id: the turn answers no message of the device.
		t := turn{task: chat, session: session, id: should.NewID("turn_"),
			message: "[Replying to: \"the build\"]\n\nretry it " + should.NewID("")}
		t.start(ctx)
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Type(lmp.TypeRunStarted).And(match.Field("session_id", session))))
		must.Equal("task_id of a turn in the chat's session", st.TaskID, chat)
		t.end(ctx, "done", nil)
		t.complete(ctx, "done")
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
	}, conformance.NeedsDriver)

	// A fork (/btw mid-turn, the background review) runs in the chat's
	// session with a turn_id of its own and fires neither pre_llm_call nor
	// on_session_end. Whether a server shows it as a run of its own is its
	// choice; the chat's run must go on: the fork ends nothing, and the
	// main turn's later hooks still reach it (note 22, SHOULD).
	specs.It("H-1", rules.SHOULD, "a fork in a chat's session neither ends the chat's run nor takes its hooks (note 22)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		t := newTurn(ctx, c)
		t.start(ctx)
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Type(lmp.TypeRunStarted).And(match.Field("session_id", t.session))))
		fork := t
		fork.id = should.NewID("turn_btw_")
		fork.hook(ctx, "on_stream_start", nil)
		fork.delta(ctx, "a side answer", lmp.DeltaKindText)
		fork.end(ctx, "a side answer", nil)
		after := "after the fork " + should.NewID("")
		t.delta(ctx, after, lmp.DeltaKindText)
		d := must.Decode[lmp.RunDelta](must.Expect(ctx, c, match.Run(st.RunID).And(match.Type(lmp.TypeRunDelta))))
		must.Equal("text of the main turn's delta after the fork", d.Text, after)
		t.end(ctx, after, nil)
		t.complete(ctx, after)
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
	}, conformance.NeedsDriver)
})
