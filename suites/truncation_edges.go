package suites

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// reconnectAfter reconnects device c with last_seq, takes the durable
// events up to head that the gap should hold, and returns the new
// connection with them. Then, after a pong, nothing else at or below head
// may have come (nothing replayed twice, nothing from before last_seq).
func reconnectAfter(ctx ginkgo.SpecContext, c *conformance.Conn, name string, lastSeq, head int64) (*conformance.Conn, []client.Frame) {
	b := must.Connect(ctx, name, c.Device, &lastSeq)
	var replay []client.Frame
	inGap := match.M{Desc: "a durable event at or below the newest seen", Fn: func(f client.Frame) bool { return lmp.IsDurable(f.Type) && f.Seq <= head }}
	for range head - lastSeq {
		wctx, cancel := context.WithTimeout(ctx, conformance.Wait())
		f, err := b.Expect(wctx, inGap)
		cancel()
		if err != nil {
			ginkgo.Fail(fmt.Sprintf("a gap of %d events after last_seq %d: %d re-sent, then: %v", head-lastSeq, lastSeq, len(replay), err))
		}
		replay = append(replay, f)
	}
	must.Send(ctx, b, lmp.Ping{})
	must.Expect(ctx, b, match.Type(lmp.TypePong))
	for _, f := range b.Pending() {
		Expect(inGap.Match(f)).To(BeFalse(), "after a gap of %d events, seq %d (%s) came as well", head-lastSeq, f.Seq, f.Type)
	}
	return b, replay
}

var _ = conformance.Section("§2 Truncation", "truncation", func() {
	// The window's edges, each ±1: a device that saw every event, a gap of
	// window-1 and of exactly the window (replayed in full, not truncated),
	// and a gap one event beyond it (truncated).
	conformance.It("E-5,E-6", rules.MUST, "gaps of 0, window-1 and window events are replayed in full without truncated; a gap of window+1 is truncated", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		w := int64(profile().ReplayWindow)
		chat := should.NewID("task_cf")
		var last string
		for range w + 2 {
			last = notify(ctx, chat)
		}
		// The device saw every event, so its seq counts the log's events,
		// whatever else the server published meanwhile.
		lastFrame := must.ExpectWithin(ctx, time.Minute, a, match.Type(lmp.TypeNotification).And(match.Field("title", last)))
		must.Send(ctx, a, lmp.Ping{})
		must.Expect(ctx, a, match.Type(lmp.TypePong))
		seen := map[int64]client.Frame{lastFrame.Seq: lastFrame}
		head := lastFrame.Seq
		for _, f := range a.Pending() {
			if lmp.IsDurable(f.Type) {
				seen[f.Seq] = f
				head = max(head, f.Seq)
			}
		}
		must.Succeed(a.CloseNow())

		for _, gap := range []int64{0, w - 1, w} {
			b, replay := reconnectAfter(ctx, a, "device after a gap", head-gap, head)
			Expect(b.HelloOK.Truncated).To(BeFalse(), "a gap of %d events with a window of %d was reported truncated", gap, w)
			Expect(int64(len(replay))).To(Equal(gap), "a gap of %d events (window %d): events re-sent", gap, w)
			for i, f := range replay {
				Expect(f.Seq).To(Equal(head-gap+1+int64(i)), "replayed event %d of a gap of %d", i+1, gap)
				if orig, ok := seen[f.Seq]; ok {
					Expect(string(f.Payload)).To(Equal(string(orig.Payload)), "re-sent seq %d keeps its content (E-7)", f.Seq)
				}
			}
			must.Succeed(b.CloseNow())
		}
		b := must.Connect(ctx, "device after a gap beyond the window", a.Device, ptr(head-w-1))
		Expect(b.HelloOK.Truncated).To(BeTrue(), "a gap of %d events with a window of %d was not reported truncated", w+1, w)
	}, conformance.NeedsDriver, ginkgo.SpecTimeout(3*time.Minute))
})
