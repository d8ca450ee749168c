package suites

import (
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

var _ = conformance.Section("§2 Envelope", "envelope", func() {
	conformance.It("E-1,E-3", rules.MUST, "durable events carry the full envelope: v 1, seq, ts, type, task_id and run_id (null when none), event_id e_<seq>, payload", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		var frames []client.Frame
		// A notification of no chat (task_id and run_id null), one of a
		// chat (run_id null), and a run (both set).
		for _, chat := range []string{"", should.NewID("task_cf")} {
			title := should.NewID("note-")
			res, err := drv().Send(ctx, driver.SendRequest{ChatID: chat, Content: "text of " + title, Metadata: map[string]any{"title": title}})
			must.Succeed(err, "driver send of notification %s", title)
			must.That(res.Success, "the adapter's send() of notification %s: want success, got %s", title, sendFailure(res))
			frames = append(frames, must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("title", title))))
		}
		t := newTurn(ctx, c)
		t.start(ctx)
		t.delta(ctx, "hi", lmp.DeltaKindText)
		t.end(ctx, "hi", nil)
		t.complete(ctx, "hi")
		for _, typ := range []string{lmp.TypeRunStarted, lmp.TypeRunDelta, lmp.TypeRunCompleted} {
			frames = append(frames, must.Expect(ctx, c, match.Task(t.task).And(match.Type(typ))))
		}
		for _, f := range frames {
			checkEnvelope(f)
			Expect(rawEnvelope(f)["v"]).To(Equal(float64(1)), "%s frame: v is %v, want the integer 1", f.Type, rawEnvelope(f)["v"])
		}
	}, conformance.NeedsDriver)
})
