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

var _ = conformance.Section(sectionNotifications, func(specs *conformance.Specs) {
	// What the wire shows whatever Hermes sent: every send() of a message
	// in a chat is a notification of that chat's task, and its text is the
	// message. The event source's notifications are messages (the
	// triggers schema asks it of a notifications trigger; the driver sends
	// "text of …"), so an empty text is a message lost on the way.
	specs.It("H-4,F-1", rules.MUST, "each send() of a message in a chat becomes one notification of its task, with that text", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		const n = 3
		b := notifications(ctx, c, n)
		for _, f := range takeBatch(ctx, c, b) {
			note := must.Decode[lmp.Notification](f)
			must.That(strings.TrimSpace(note.Text) != "", "a notification of a sent message has an empty text: %s", c.Describe(f))
		}
	}, conformance.NeedsEvents)

	// The text of a notification is the message send() delivered (§4,
	// §7: notification comes from send()), all of it: a message of several
	// lines is not its first line. Whatever else send() was given (Hermes
	// gives no category, another caller of the adapter may), the category
	// is one of the two §4 names (F-1).
	specs.It("H-4,F-1", rules.MUST, "a notification carries send()'s whole message, every line, with category result or diagnostic", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		for _, metadata := range []map[string]any{nil, {"category": lmp.CategoryDiagnostic}, {"category": lmp.CategoryResult}} {
			chat := should.NewID("task_cf")
			text := should.NewID("Cron job finished ") + "\n3 new issues.\n1 failing check."
			res, err := drv(ctx).Send(ctx, driver.SendRequest{ChatID: chat, Content: text, Metadata: metadata})
			must.Succeed(err, "driver send()")
			must.That(res.Success, "driver send() failed: %+v", res)
			f := must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Task(chat)))
			category, _ := rawPayload(f)["category"].(string)
			must.That(category == lmp.CategoryResult || category == lmp.CategoryDiagnostic,
				"a send() with metadata %v became a notification of category %q, not result or diagnostic: %s", metadata, category, c.Describe(f))
			must.Equal("notification text", must.Decode[lmp.Notification](f).Text, text)
		}
	}, conformance.NeedsDriver)

	// INFO: Hermes passes no category, title, source or requires_attention
	// to send() (hermes.md, note 20), so a notification's fields beyond its
	// text are the adapter's own derivation. The reference adapter takes
	// them from send()'s metadata when a caller gives them
	// (docs/protocol.md); another adapter may derive them otherwise and
	// still conform (note 21). Only the driver knows what send() was given.
	specs.It("H-4,F-1", rules.INFO, "send()'s category, title, source and requires_attention reach the notification (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		chat := should.NewID("task_cf")
		title := should.NewID("note-")
		text := should.NewID("cron finished ")
		res, err := drv(ctx).Send(ctx, driver.SendRequest{ChatID: chat, Content: text,
			Metadata: map[string]any{"category": "diagnostic", "title": title, "source": "cron", "requires_attention": true}})
		must.Succeed(err, "driver send()")
		must.That(res.Success, "driver send() failed: %+v", res)
		n := must.Decode[lmp.Notification](must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("text", text))))
		var soft must.Soft
		soft.Equal("notification title", n.Title, title)
		soft.Equal("notification category", n.Category, lmp.CategoryDiagnostic)
		soft.Equal("notification source", n.Source, "cron")
		soft.That(n.RequiresAttention, "notification requires_attention is false, send() gave true")
		soft.Done()
	}, conformance.NeedsDriver)
})
