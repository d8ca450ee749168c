package suites

import (
	"strings"

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
	// What the wire shows whatever Hermes sent: every send() of a message
	// in a chat is a notification of that chat's task, and its text is the
	// message. The event source's notifications are messages (the
	// triggers schema asks it of a notifications trigger; the driver sends
	// "text of …"), so an empty text is a message lost on the way.
	conformance.It("H-4,F-1", rules.MUST, "each send() of a message in a chat becomes one notification of its task, with the message as its text", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		const n = 3
		b := notifications(ctx, c, n)
		for _, f := range takeBatch(ctx, c, b) {
			note := must.Decode[lmp.Notification](f)
			must.That(strings.TrimSpace(note.Text) != "", "a notification of a sent message has an empty text: %s", c.Describe(f))
		}
	}, conformance.NeedsEvents)

	// Hermes passes no category, title, source or requires_attention
	// (hermes.md, note 20); another caller of the adapter may, and the
	// driver does. Only the driver knows what send() was given, so the
	// field-by-field check needs it.
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
