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

var _ = conformance.Section(sectionEnvelope, func(specs *conformance.Specs) {
	specs.It("E-1,E-3", rules.MUST, "durable events carry the full envelope: v, seq, ts, type, task_id, run_id, event_id e_<seq>, payload", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		// Notifications of a chat (run_id null) and a run (both set).
		frames := takeBatch(ctx, c, notifications(ctx, c, 2))
		r, err := conformance.Events(ctx).Reply(ctx, c)
		must.Succeed(err, "start a reply run")
		frames = append(frames, runFramesOf(ctx, c, r.Task)...)
		// A notification of no chat (task_id null too): only a send()
		// without a chat_id makes one, and only the driver asks for it.
		if conformance.Events(ctx).Source() == conformance.SourceDriver {
			title := should.NewID("note-")
			res, err := drv(ctx).Send(ctx, driver.SendRequest{Content: "text of " + title, Metadata: map[string]any{"title": title}})
			must.Succeed(err, "driver send of notification %s", title)
			must.That(res.Success, "the adapter's send() of notification %s: want success, got %s", title, sendFailure(res))
			frames = append(frames, must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("title", title))))
		}
		for _, f := range frames {
			checkEnvelope(f)
		}
	}, conformance.NeedsEvents, conformance.DriverFirst)
})
