package mockhermes

import (
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// maxCalls bounds the recording; the oldest calls go first. A test reads
// and clears it long before this matters.
const maxCalls = 10000

// maxCallBytes bounds the recording in bytes (approxSize of the calls'
// arguments), besides maxCalls in entries: handle_message carries a
// message of up to 64 Ki characters. Once the recording is a quarter over
// it the oldest calls go; the newest is always kept.
const maxCallBytes = 32 << 20

// recorder keeps every call the adapter made into Hermes, in order.
type recorder struct {
	mu    sync.Mutex
	seq   int64
	calls []driver.Call
	sizes []int // approxSize of each call's arguments
	bytes int   // their sum
}

func (r *recorder) add(name string, args map[string]any, result any) {
	r.record(name, args, result, false)
}

// addHeld records a call Hermes has not answered yet (held) and returns
// its seq, for answered.
func (r *recorder) addHeld(name string, args map[string]any) int64 {
	return r.record(name, args, nil, true)
}

func (r *recorder) record(name string, args map[string]any, result any, held bool) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	shaped := jsonShape(args)
	r.calls = append(r.calls, driver.Call{
		Seq: r.seq, Name: name, Args: shaped, Result: result,
		At: lmp.Timestamp(time.Now()), Held: held,
	})
	n := approxSize(shaped)
	r.sizes = append(r.sizes, n)
	r.bytes += n
	if len(r.calls) <= maxCalls && r.bytes <= maxCallBytes+maxCallBytes/4 {
		return r.seq // trimmed a quarter over the bound, not at every call
	}
	drop := max(0, len(r.calls)-maxCalls)
	for _, n := range r.sizes[:drop] {
		r.bytes -= n
	}
	for r.bytes > maxCallBytes && drop < len(r.calls)-1 {
		r.bytes -= r.sizes[drop]
		drop++
	}
	if drop > 0 { // copied, so that the dropped calls' arguments can go
		r.calls = append([]driver.Call(nil), r.calls[drop:]...)
		r.sizes = append([]int(nil), r.sizes[drop:]...)
	}
	return r.seq
}

// answered gives the held call seq its result.
func (r *recorder) answered(seq int64, result any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.calls {
		if r.calls[i].Seq == seq {
			r.calls[i].Held, r.calls[i].Result = false, result
			return
		}
	}
}

func (r *recorder) list() []driver.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]driver.Call{}, r.calls...)
}

func (r *recorder) clear() {
	r.mu.Lock()
	r.calls, r.sizes, r.bytes = nil, nil, 0
	r.mu.Unlock()
}

// Calls returns the recorded calls, oldest first.
func (m *Mock) Calls() []driver.Call { return m.rec.list() }

// ClearCalls forgets the recorded calls; numbering continues.
func (m *Mock) ClearCalls() { m.rec.clear() }

// none is Python's None for an empty optional string argument.
func none(s string) any {
	if s == "" {
		return nil
	}
	return s
}
