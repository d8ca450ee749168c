package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionReplay, func(specs *conformance.Specs) {
	specs.It("E-2,E-5,E-7", rules.MUST, "a hello with last_seq gets the gap re-sent in order, original seq and content, then live events", func(ctx ginkgo.SpecContext) {
		a, batch := pairAndNotify(ctx, 6)
		first := takeBatch(ctx, a, batch)
		for i := 1; i < len(first); i++ {
			must.That(first[i].Seq > first[i-1].Seq, "notification %d has seq %d after seq %d: seq must increase strictly (E-2)", i+1, first[i].Seq, first[i-1].Seq)
		}
		must.Succeed(a.CloseNow())
		last := first[1].Seq
		b := must.Connect(ctx, "device reconnected", a.Device, &last)
		// Live events while the replay is under way.
		live := notifications(ctx, b, 3)
		replayed := takeN(ctx, b, batch.Match(), batch.N-2)
		for i, f := range replayed {
			orig := first[i+2]
			must.Equal("seq of the re-sent "+orig.EventID+" (E-7)", f.Seq, orig.Seq)
			must.Equal("content of the re-sent "+orig.EventID+" (E-7)", string(f.Payload), string(orig.Payload))
		}
		liveFrames := takeBatch(ctx, b, live)
		must.That(liveFrames[0].Seq > replayed[len(replayed)-1].Seq, "the first live event has seq %d, not above the replay's last %d", liveFrames[0].Seq, replayed[len(replayed)-1].Seq)
		// No duplicates and nothing before last_seq, across the whole stream.
		seen := map[int64]bool{}
		prev := last
		for _, f := range append(append([]client.Frame{}, replayed...), liveFrames...) {
			must.That(!seen[f.Seq], "seq %d delivered twice", f.Seq)
			seen[f.Seq] = true
			must.That(f.Seq > prev, "seq %d after seq %d: out of order", f.Seq, prev)
			prev = f.Seq
		}
		for _, f := range b.Pending() {
			if lmp.IsDurable(f.Type) {
				must.That(f.Seq > last, "a durable event at or below last_seq %d was re-sent: %s", last, b.Describe(f))
			}
		}
	}, conformance.NeedsEvents)

	specs.It("E-5", rules.SHOULD, "events produced while a device is offline are replayed on reconnect (note 3)", func(ctx ginkgo.SpecContext) {
		a, warm := pairAndNotify(ctx, 1)
		// Triggers need a connection to send them: another device's.
		sender := must.Pair(ctx, "sender")
		base := takeBatch(ctx, a, warm)[0].Seq
		must.Succeed(a.CloseNow())
		batch := notifications(ctx, sender, 4)
		takeBatch(ctx, sender, batch) // produced before the device is back
		b := must.Connect(ctx, "device back online", a.Device, &base)
		got := takeBatch(ctx, b, batch)
		for i := 1; i < len(got); i++ {
			must.That(got[i].Seq > got[i-1].Seq, "replayed notification %d has seq %d after seq %d", i+1, got[i].Seq, got[i-1].Seq)
		}
	}, conformance.NeedsEvents)

	specs.It("E-6", rules.MUST, "a gap within the window is not truncated", func(ctx ginkgo.SpecContext) {
		a, batch := pairAndNotify(ctx, 2)
		f := takeBatch(ctx, a, batch)
		must.Succeed(a.CloseNow())
		last := f[0].Seq
		b := must.Connect(ctx, "device reconnected", a.Device, &last)
		must.That(!b.HelloOK.Truncated, "a gap of %d events within a window of %d: hello.ok says truncated", batch.N-1, profile(ctx).ReplayWindow)
	}, conformance.NeedsEvents)

	// The whole stream after a reconnect, frame by frame: a spec that waits
	// for expected frames by content would skip over a re-sent duplicate.
	specs.It("E-2,E-7", rules.MUST, "the replayed gap and the live events after it carry each seq once, in strictly increasing order", func(ctx ginkgo.SpecContext) {
		a, batch := pairAndNotify(ctx, 4)
		first := takeBatch(ctx, a, batch)
		must.Succeed(a.CloseNow())
		last := first[0].Seq
		b := must.Connect(ctx, "device reconnected", a.Device, &last)
		live := notifications(ctx, b, 1)
		prev := last
		for {
			f := must.Expect(ctx, b, match.Anything())
			if !lmp.IsDurable(f.Type) {
				continue
			}
			must.That(f.Seq > prev, "%s (seq %d) after seq %d: a seq was sent twice or out of order", f.Type, f.Seq, prev)
			prev = f.Seq
			if live.Match().Match(f) {
				break
			}
		}
	}, conformance.NeedsEvents)
})
