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

// recorder keeps every call the adapter made into Hermes, in order.
type recorder struct {
	mu    sync.Mutex
	seq   int64
	calls []driver.Call
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
	r.calls = append(r.calls, driver.Call{
		Seq: r.seq, Name: name, Args: jsonShape(args), Result: result,
		At: lmp.Timestamp(time.Now()), Held: held,
	})
	if len(r.calls) > maxCalls {
		r.calls = append([]driver.Call(nil), r.calls[len(r.calls)-maxCalls:]...)
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
	r.calls = nil
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
