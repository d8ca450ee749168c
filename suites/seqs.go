package suites

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// seq across a connection, a gap and a replay: what a device has seen and gets back.

// highestSeq is the highest seq of the durable frames c has received:
// taken (the frames given) or still in its inbox.
func highestSeq(c *conformance.Conn, taken []client.Frame) int64 {
	high := c.HelloSeq
	for _, f := range append(append([]client.Frame(nil), taken...), c.Pending()...) {
		if lmp.IsDurable(f.Type) && f.Seq > high {
			high = f.Seq
		}
	}
	return high
}

// seqWatch reads a connection's frames in the order they arrived and
// checks that their seq never goes back.
type seqWatch struct {
	c    *conformance.Conn
	last int64
	prev string // the frame that carried last
}

// until reads frames up to and including the first one m matches.
func (w *seqWatch) until(ctx context.Context, m match.M) client.Frame {
	ginkgo.GinkgoHelper()
	for {
		f := must.Expect(ctx, w.c, match.Anything())
		must.That(f.Seq >= w.last, "seq went back on one connection: %s carries seq %d after %s carried %d", w.c.Describe(f), f.Seq, w.prev, w.last)
		w.last, w.prev = f.Seq, f.Type
		if m.Match(f) {
			return f
		}
	}
}

// pairAndNotify pairs a device and has the event source produce n
// notifications in a new task, returning the device and the batch.
func pairAndNotify(ctx ginkgo.SpecContext, n int) (*conformance.Conn, conformance.Batch) {
	ginkgo.GinkgoHelper()
	a := must.Pair(ctx, "device")
	return a, notifications(ctx, a, n)
}

// deviceLog is what one device received while it stayed online: its
// durable events (the spec's list, lmp.IsDurable) in order, and the
// highest seq of any frame. A gap is counted in these events, never in seq
// differences: seq only has to increase strictly (E-2), and a server may
// number connection frames too (the alternative to note 2).
type deviceLog struct {
	durable []client.Frame
	last    int64
}

func (l *deviceLog) add(f client.Frame) {
	l.last = max(l.last, f.Seq)
	if lmp.IsDurable(f.Type) {
		l.durable = append(l.durable, f)
	}
}

// addNewer adds the durable events of frames above the log's newest, so
// that a later gap counts an event the server produced after the log was
// read (a trigger's own turn ending after its notifications, say).
func (l *deviceLog) addNewer(frames []client.Frame) {
	for _, f := range frames {
		if lmp.IsDurable(f.Type) && f.Seq > l.head() {
			l.add(f)
		}
	}
}

// lastSeqBefore is the last_seq of a device that missed the newest gap
// durable events: the seq of the one before them, or, for a gap of 0,
// the highest seq the device got, as an app that processed every frame
// sends it.
func (l *deviceLog) lastSeqBefore(gap int) int64 {
	if gap == 0 {
		return l.last
	}
	return l.durable[len(l.durable)-1-gap].Seq
}

// head is the seq of the newest durable event.
func (l *deviceLog) head() int64 { return l.durable[len(l.durable)-1].Seq }

// describeGap names a gap of n durable events in a failure message.
func describeGap(n int) string {
	if n == 0 {
		return "no gap (the device got every frame)"
	}
	return fmt.Sprintf("a gap of %d events", n)
}

// readThrough reads c's frames in order until b's notifications have all
// come, and then until the answer to a ping: everything the server sent c
// meanwhile, so that the log ends with the device's newest event.
func readThrough(ctx context.Context, c *conformance.Conn, b conformance.Batch) *deviceLog {
	ginkgo.GinkgoHelper()
	l := &deviceLog{last: max(c.HelloSeq, b.Reply.Seq)}
	for got := 0; got < b.N; {
		f, err := should.Expect(ctx, c, match.Anything())
		if err != nil {
			ginkgo.Fail(fmt.Sprintf("%s: waiting for %d notifications in task %s: %d came, then: %v", c.Name, b.N, b.Task, got, err))
		}
		l.add(f)
		if b.Match().Match(f) {
			got++
		}
	}
	must.Send(ctx, c, lmp.Ping{})
	for {
		f := must.Expect(ctx, c, match.Anything())
		l.add(f)
		if f.Type == lmp.TypePong {
			return l
		}
	}
}

// reconnectMissing reconnects the device of log as one that missed the
// newest gap durable events.
func reconnectMissing(ctx context.Context, a *conformance.Conn, log *deviceLog, gap int) *conformance.Conn {
	ginkgo.GinkgoHelper()
	lastSeq := log.lastSeqBefore(gap)
	return must.Connect(ctx, fmt.Sprintf("device after a gap of %d", gap), a.Device, &lastSeq)
}

// reconnectMissingInFull is reconnectMissing for a gap within the replay
// window, which the server must replay in full. An event the server
// produced after the log was last read (a trigger's own turn ending late)
// makes the server's gap one event longer than the log's, and a gap of
// exactly the window then rightly comes back truncated. So when hello.ok
// says truncated, the device first catches up with no gap; when that
// brings events the log did not have, it tries the gap again, a few times.
// A truncated gap that the log knows in full is returned, for the spec to
// fail.
func reconnectMissingInFull(ctx context.Context, a *conformance.Conn, log *deviceLog, gap int) *conformance.Conn {
	ginkgo.GinkgoHelper()
	for range 3 {
		b := reconnectMissing(ctx, a, log, gap)
		if !b.HelloOK.Truncated {
			return b
		}
		must.Succeed(b.CloseNow())
		known := len(log.durable)
		if !catchUp(ctx, a, log) {
			break
		}
		ginkgo.AddReportEntry("replay gap", fmt.Sprintf("hello.ok after %s said truncated; %d events newer than the log's came meanwhile, so the gap was tried again", describeGap(gap), len(log.durable)-known))
	}
	return reconnectMissing(ctx, a, log, gap)
}

// catchUp connects the device of log with no gap and adds to the log the
// durable events newer than its head that come before the answer to a
// ping; it reports whether there were any.
func catchUp(ctx context.Context, a *conformance.Conn, log *deviceLog) bool {
	ginkgo.GinkgoHelper()
	last := log.last
	c := must.Connect(ctx, "device catching up", a.Device, &last)
	must.Send(ctx, c, lmp.Ping{})
	must.Expect(ctx, c, match.Type(lmp.TypePong))
	known := len(log.durable)
	log.addNewer(c.Pending())
	must.Succeed(c.CloseNow())
	return len(log.durable) > known
}

// expectReplay checks the replay b got after missing the newest gap
// durable events of log: exactly those events re-sent, in order, with
// their seq and content (E-5, E-7), and after a pong nothing else at or
// below the newest event (nothing twice, nothing the device had seen).
func expectReplay(ctx context.Context, b *conformance.Conn, log *deviceLog, gap, window int) {
	ginkgo.GinkgoHelper()
	lastSeq, head := log.lastSeqBefore(gap), log.head()
	inGap := match.M{Desc: "a durable event at or below the newest seen", Fn: func(f client.Frame) bool { return lmp.IsDurable(f.Type) && f.Seq <= head }}
	for i, want := range log.durable[len(log.durable)-gap:] {
		f, err := should.Expect(ctx, b, inGap)
		if err != nil {
			ginkgo.Fail(fmt.Sprintf("a gap of %d events after last_seq %d (window %d), not truncated: %d re-sent, want %d; then: %v", gap, lastSeq, window, i, gap, err))
		}
		must.That(f.Seq == want.Seq && f.Type == want.Type,
			"a gap of %d events after last_seq %d: re-sent event %d is %s seq %d, want %s seq %d (E-5, E-7)", gap, lastSeq, i+1, f.Type, f.Seq, want.Type, want.Seq)
		must.That(string(f.Payload) == string(want.Payload),
			"a gap of %d events: re-sent seq %d has payload %s, want the original %s (E-7)", gap, f.Seq, f.Payload, want.Payload)
	}
	must.Send(ctx, b, lmp.Ping{})
	must.Expect(ctx, b, match.Type(lmp.TypePong))
	for _, f := range b.Pending() {
		must.That(!inGap.Match(f), "a gap of %d events after last_seq %d: after its %d events, %s seq %d came as well (re-sent twice, or one the device had seen)", gap, lastSeq, gap, f.Type, f.Seq)
	}
}
