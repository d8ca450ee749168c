package server

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/jsonscan"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// event is one durable event (note 2) in the shared log. Everything but seq
// and event_id is the same for every device, so it is encoded once, when
// published, and each device's frame is spliced together from it at send
// time into the connection's reused buffer (E-1, E-3): a delivery
// allocates nothing.
type event struct {
	g             int64  // global index; a device's seq is g - device base (E-2)
	typ           string // frame type
	taskID, runID *string
	mid           []byte // `,"ts":…,"type":…,"task_id":…,"run_id":…,"event_id":"e_`
	tail          []byte // `","payload":…}`
}

// payloadTail is how the tail of an event starts, before its payload.
const payloadTail = `","payload":`

// envelope is the event's envelope as a device with the given base sees
// it, for Config.Observer.
func (e *event) envelope(base int64) Envelope {
	return Envelope{Type: e.typ, Seq: e.g - base, TaskID: e.taskID, RunID: e.runID, Payload: e.tail[len(payloadTail) : len(e.tail)-1]}
}

var eventHead = []byte(`{"v":1,"seq":`)

// newEvent encodes an event once: its envelope without seq and event_id,
// and its payload, straight into one buffer (a pooled scratch buffer with
// a JSON encoder writing into it, copied out at the exact size).
func newEvent(typ string, ts time.Time, taskID, runID *string, payload any) (*event, error) {
	sc := scratchPool.Get().(*eventScratch)
	defer sc.put()
	// Enforces E-1: every durable frame carries v, seq, ts, type, task_id and run_id (null when absent), event_id and payload.
	// Connection-scoped frames get the same fields from lmp.Frame in writeScoped.
	b := sc.buf.AvailableBuffer()
	b = append(b, `,"ts":`...)
	// Enforces T-7: an event's ts is lmp.Timestamp, float epoch seconds (UTC); writeScoped uses the same.
	b = appendJSON(b, lmp.Timestamp(ts))
	b = append(b, `,"type":`...)
	b = appendJSON(b, typ)
	b = append(b, `,"task_id":`...)
	b = appendJSON(b, taskID)
	b = append(b, `,"run_id":`...)
	b = appendJSON(b, runID)
	b = append(b, `,"event_id":"e_`...)
	k := len(b)
	b = append(b, payloadTail...)
	sc.buf.Write(b)
	if err := sc.enc.Encode(payload); err != nil {
		return nil, err
	}
	sc.buf.Truncate(sc.buf.Len() - 1) // the encoder's newline
	if sc.buf.Len() > lmp.MaxFrameBytes-envelopeReserve {
		// Perhaps over the frame limit: encodePayload measures it exactly
		// and shortens its strings to fit (rare, so encoded again).
		raw, err := encodePayload(payload, taskID, runID)
		if err != nil {
			return nil, err
		}
		sc.buf.Truncate(len(b))
		sc.buf.Write(raw)
	}
	sc.buf.WriteByte('}')
	buf := bytes.Clone(sc.buf.Bytes())
	return &event{typ: typ, taskID: taskID, runID: runID, mid: buf[:k:k], tail: buf[k:]}, nil
}

// eventScratch is where newEvent encodes an event before copying it out.
type eventScratch struct {
	buf bytes.Buffer
	enc *json.Encoder // writes into buf, escaping HTML as json.Marshal does
}

var scratchPool = sync.Pool{New: func() any {
	sc := &eventScratch{}
	sc.enc = json.NewEncoder(&sc.buf)
	return sc
}}

// put returns the scratch buffer to the pool, unless a large payload grew
// it past maxKeptFrame.
func (sc *eventScratch) put() {
	if sc.buf.Cap() > maxKeptFrame {
		return
	}
	sc.buf.Reset()
	scratchPool.Put(sc)
}

// appendJSON appends v encoded as encoding/json encodes it. The values of
// an envelope (a ts, plain ASCII names and ids, null) are appended
// directly; anything else goes through json.Marshal.
func appendJSON[T float64 | string | *string | *float64](dst []byte, v T) []byte {
	switch v := any(v).(type) {
	case *float64:
		if v == nil {
			return append(dst, "null"...)
		}
		return appendJSON(dst, *v)
	case float64:
		if a := math.Abs(v); a == 0 || (a >= 1e-6 && a < 1e21) {
			return strconv.AppendFloat(dst, v, 'f', -1, 64) // encoding/json's format in this range
		}
	case *string:
		if v == nil {
			return append(dst, "null"...)
		}
		return appendJSON(dst, *v)
	case string:
		return jsonscan.AppendString(dst, v, true) // as json.Marshal writes it
	}
	raw, _ := json.Marshal(v)
	return append(dst, raw...)
}

// appendTo appends the frame as the device with the given base sees it.
func (e *event) appendTo(dst []byte, base int64) []byte {
	dst = append(dst, eventHead...)
	from := len(dst)
	dst = strconv.AppendInt(dst, e.g-base, 10)
	seq := dst[from:]
	dst = append(dst, e.mid...)
	// Enforces E-3: event_id is rendered from the same seq, as "e_<seq>".
	dst = append(dst, seq...)
	return append(dst, e.tail...)
}

// eventLog is the one replay buffer shared by every device (E-5, note 3):
// a ring of the most recent events by global index. Every non-revoked
// device gets every event, so the last N global events are the last N
// events of each device, and memory does not grow with the number of
// devices.
//
// Appending (under Server.mu) and reading (connection writers, without a
// lock) meet only in atomics: each slot is an atomic pointer and top is
// the newest index readable. A reader that finds in a slot an event other
// than the one it asked for knows it was overwritten: its cursor fell out
// of the window.
type eventLog struct {
	ring []atomic.Pointer[event]
	n    int   // events held (Server.mu)
	last int64 // global index of the newest event ever appended (Server.mu)
	top  atomic.Int64
}

func newEventLog(window int, last int64) *eventLog {
	l := &eventLog{ring: make([]atomic.Pointer[event], window), last: last}
	l.top.Store(last)
	return l
}

// add appends e as global index last+1.
func (l *eventLog) add(e *event) {
	// Enforces E-2: global indices only grow, so each device's seq (g - Base) increases strictly.
	// The persisted lease (seqLease, reserveLocked) keeps them from repeating after a restart.
	l.last++
	e.g = l.last
	l.ring[l.slot(e.g)].Store(e)
	if l.n < len(l.ring) {
		l.n++
	}
	l.top.Store(e.g) // after the slot: a reader that sees top sees the event
}

func (l *eventLog) slot(g int64) int { return int(g % int64(len(l.ring))) }

// published is the global index of the newest event, readable without a
// lock.
func (l *eventLog) published() int64 { return l.top.Load() }

// oldest is the global index of the oldest event held (last+1 when empty).
func (l *eventLog) oldest() int64 { return l.last - int64(l.n) + 1 }

// after appends to dst, up to its capacity, the held events with a global
// index above g, oldest first; false when the event after g was already
// dropped from the ring (a cursor that fell out of the window). It takes
// no lock.
func (l *eventLog) after(g int64, dst []*event) ([]*event, bool) {
	top := l.top.Load()
	for x := g + 1; x <= top && len(dst) < cap(dst); x++ {
		e := l.ring[l.slot(x)].Load()
		if e == nil || e.g != x {
			return dst, false // overwritten (or lost in a restart)
		}
		dst = append(dst, e)
	}
	return dst, true
}

// since returns the held events with a global index above after, oldest
// first, and whether that is all of them (false when some were already
// dropped from the ring or lost in a restart: E-6).
func (l *eventLog) since(after int64) (evs []*event, complete bool) {
	from := after + 1
	complete = from >= l.oldest()
	if !complete {
		from = l.oldest()
	}
	for g := from; g <= l.last; g++ {
		evs = append(evs, l.ring[l.slot(g)].Load())
	}
	return evs, complete
}
