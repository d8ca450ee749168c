package server

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// event is one durable event (note 2) in the shared log. Everything but seq
// and event_id is the same for every device, so it is encoded once, and each
// device's envelope is spliced together at send time (E-1, E-3).
type event struct {
	g    int64  // global index; a device's seq is g - device base (E-2)
	typ  string // frame type, for logs and tests
	mid  []byte // `,"ts":…,"type":…,"task_id":…,"run_id":…,"event_id":"e_`
	tail []byte // `","payload":…}`
}

var eventHead = []byte(`{"v":1,"seq":`)

func newEvent(typ string, ts time.Time, taskID, runID *string, payload json.RawMessage) *event {
	// Enforces T-7: an event's ts is lmp.Timestamp, float epoch seconds (UTC); writeScoped uses the same.
	tsRaw, _ := json.Marshal(lmp.Timestamp(ts))
	typRaw, _ := json.Marshal(typ)
	taskRaw, _ := json.Marshal(taskID)
	runRaw, _ := json.Marshal(runID)
	// Enforces E-1: every durable frame carries v, seq, ts, type, task_id and run_id (null when absent), event_id and payload.
	// Connection-scoped frames get the same fields from lmp.Frame in writeScoped.
	mid := make([]byte, 0, 64+len(typRaw)+len(taskRaw)+len(runRaw))
	mid = append(mid, `,"ts":`...)
	mid = append(mid, tsRaw...)
	mid = append(mid, `,"type":`...)
	mid = append(mid, typRaw...)
	mid = append(mid, `,"task_id":`...)
	mid = append(mid, taskRaw...)
	mid = append(mid, `,"run_id":`...)
	mid = append(mid, runRaw...)
	mid = append(mid, `,"event_id":"e_`...)
	tail := make([]byte, 0, len(payload)+16)
	tail = append(tail, `","payload":`...)
	tail = append(tail, payload...)
	tail = append(tail, '}')
	return &event{typ: typ, mid: mid, tail: tail}
}

// render returns the frame as the device with the given base sees it.
func (e *event) render(base int64) []byte {
	seq := strconv.AppendInt(nil, e.g-base, 10)
	out := make([]byte, 0, len(eventHead)+2*len(seq)+len(e.mid)+len(e.tail))
	out = append(out, eventHead...)
	out = append(out, seq...)
	out = append(out, e.mid...)
	// Enforces E-3: event_id is rendered from the same seq, as "e_<seq>".
	out = append(out, seq...)
	out = append(out, e.tail...)
	return out
}

// eventLog is the one replay buffer shared by every device (E-5, note 3):
// a ring of the most recent events by global index. Every non-revoked
// device gets every event, so the last N global events are the last N
// events of each device, and memory does not grow with the number of
// devices.
type eventLog struct {
	ring []*event
	n    int   // events held
	last int64 // global index of the newest event ever appended
}

func newEventLog(window int, last int64) eventLog {
	return eventLog{ring: make([]*event, window), last: last}
}

// add appends e as global index last+1.
func (l *eventLog) add(e *event) {
	// Enforces E-2: global indices only grow, so each device's seq (g - Base) increases strictly.
	// The persisted lease (extendLeaseLocked) keeps them from repeating after a restart.
	l.last++
	e.g = l.last
	l.ring[int(l.last%int64(len(l.ring)))] = e
	if l.n < len(l.ring) {
		l.n++
	}
}

// oldest is the global index of the oldest event held (last+1 when empty).
func (l *eventLog) oldest() int64 { return l.last - int64(l.n) + 1 }

// after appends to dst, up to its capacity, the held events with a global
// index above g, oldest first; false when the event after g was already
// dropped from the ring (a cursor that fell out of the window).
func (l *eventLog) after(g int64, dst []*event) ([]*event, bool) {
	if g+1 < l.oldest() {
		return dst, false
	}
	for x := g + 1; x <= l.last && len(dst) < cap(dst); x++ {
		dst = append(dst, l.ring[int(x%int64(len(l.ring)))])
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
		evs = append(evs, l.ring[int(g%int64(len(l.ring)))])
	}
	return evs, complete
}
