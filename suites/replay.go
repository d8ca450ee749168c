package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// takeNotes takes the notifications with the given titles from c, in the
// order they arrive, and returns the frames.
func takeNotes(ctx ginkgo.SpecContext, c *conformance.Conn, titles []string) []client.Frame {
	var out []client.Frame
	for _, title := range titles {
		out = append(out, must.Expect(ctx, c, match.Type(lmp.TypeNotification).And(match.Field("title", title))))
	}
	return out
}

// pairAndNotify pairs a device and has Hermes send n notifications in a
// new chat, returning the device, the chat and the notifications' titles.
func pairAndNotify(ctx ginkgo.SpecContext, n int) (*conformance.Conn, string, []string) {
	a := must.Pair(ctx, "device")
	chat := should.NewID("task_cf")
	var titles []string
	for range n {
		titles = append(titles, notify(ctx, chat))
	}
	return a, chat, titles
}

var _ = conformance.Section("§2 Reconnection and replay", "replay", func() {
	conformance.It("E-2,E-5,E-7", rules.MUST, "a hello with last_seq gets exactly the gap re-sent, in order, with original seq and content, then live events without loss", func(ctx ginkgo.SpecContext) {
		a, chat, titles := pairAndNotify(ctx, 6)
		first := takeNotes(ctx, a, titles)
		for i := 1; i < len(first); i++ {
			Expect(first[i].Seq).To(BeNumerically(">", first[i-1].Seq), "seq must increase strictly (E-2)")
		}
		must.Succeed(a.CloseNow())
		last := first[1].Seq
		b := must.Connect(ctx, "device reconnected", a.Device, &last)
		// Live events while the replay is under way.
		var live []string
		for range 3 {
			live = append(live, notify(ctx, chat))
		}
		replayed := takeNotes(ctx, b, titles[2:])
		for i, f := range replayed {
			orig := first[i+2]
			Expect(f.Seq).To(Equal(orig.Seq), "re-sent %s keeps its seq (E-7)", orig.EventID)
			Expect(string(f.Payload)).To(Equal(string(orig.Payload)), "re-sent %s keeps its content (E-7)", orig.EventID)
		}
		liveFrames := takeNotes(ctx, b, live)
		Expect(liveFrames[0].Seq).To(BeNumerically(">", replayed[len(replayed)-1].Seq))
		// No duplicates and nothing before last_seq, across the whole stream.
		seen := map[int64]bool{}
		prev := last
		for _, f := range append(append([]client.Frame{}, replayed...), liveFrames...) {
			Expect(seen[f.Seq]).To(BeFalse(), "seq %d delivered twice", f.Seq)
			seen[f.Seq] = true
			Expect(f.Seq).To(BeNumerically(">", prev), "seq out of order")
			prev = f.Seq
		}
		for _, f := range b.Pending() {
			if lmp.IsDurable(f.Type) {
				Expect(f.Seq).To(BeNumerically(">", last), "a frame at or below last_seq was re-sent: %s", f.Raw)
			}
		}
	}, conformance.NeedsDriver)

	conformance.It("E-5", rules.SHOULD, "events produced while a device is offline are replayed on reconnect (note 3)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		chat := should.NewID("task_cf")
		warm := notify(ctx, chat)
		base := takeNotes(ctx, a, []string{warm})[0].Seq
		must.Succeed(a.CloseNow())
		var titles []string
		for range 4 {
			titles = append(titles, notify(ctx, chat))
		}
		b := must.Connect(ctx, "device back online", a.Device, &base)
		got := takeNotes(ctx, b, titles)
		for i := 1; i < len(got); i++ {
			Expect(got[i].Seq).To(BeNumerically(">", got[i-1].Seq))
		}
	}, conformance.NeedsDriver)

	conformance.It("E-6", rules.MUST, "a gap within the window is not truncated", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		chat := should.NewID("task_cf")
		f := takeNotes(ctx, a, []string{notify(ctx, chat), notify(ctx, chat)})
		must.Succeed(a.CloseNow())
		last := f[0].Seq
		b := must.Connect(ctx, "device reconnected", a.Device, &last)
		Expect(b.HelloOK.Truncated).To(BeFalse())
	}, conformance.NeedsDriver)

	// The whole stream after a reconnect, frame by frame: a spec that waits
	// for expected frames by content would skip over a re-sent duplicate.
	conformance.It("E-2,E-7", rules.MUST, "the replayed gap and the live events that follow it carry each seq once, in strictly increasing order", func(ctx ginkgo.SpecContext) {
		a, chat, titles := pairAndNotify(ctx, 4)
		first := takeNotes(ctx, a, titles)
		must.Succeed(a.CloseNow())
		last := first[0].Seq
		b := must.Connect(ctx, "device reconnected", a.Device, &last)
		live := notify(ctx, chat)
		prev := last
		for {
			f := must.Expect(ctx, b, match.Anything())
			if !lmp.IsDurable(f.Type) {
				continue
			}
			Expect(f.Seq).To(BeNumerically(">", prev), "%s (seq %d) after seq %d: a seq was sent twice or out of order", f.Type, f.Seq, prev)
			prev = f.Seq
			if f.Type == lmp.TypeNotification && rawPayload(f)["title"] == live {
				break
			}
		}
	}, conformance.NeedsDriver)
})
