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

var _ = conformance.Section("§4 Notifications", "notifications", func() {
	conformance.It("H-4,F-1", rules.MUST, "the adapter's send() becomes a notification with category, title, text, source and requires_attention", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		chat := should.NewID("task_cf")
		title := should.NewID("note-")
		res, err := drv().Send(ctx, driver.SendRequest{ChatID: chat, Content: "cron finished",
			Metadata: map[string]any{"category": "diagnostic", "title": title, "source": "cron", "requires_attention": true}})
		must.Succeed(err, "driver send()")
		must.That(res.Success, "driver send() failed: %+v", res)
		n := must.Decode[lmp.Notification](must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("title", title))))
		must.Equal("notification category", n.Category, lmp.CategoryDiagnostic)
		must.Equal("notification text", n.Text, "cron finished")
		must.Equal("notification source", n.Source, "cron")
		must.That(n.RequiresAttention, "notification requires_attention is false")
	}, conformance.NeedsDriver)
})
