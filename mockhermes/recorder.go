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
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	r.calls = append(r.calls, driver.Call{
		Seq: r.seq, Name: name, Args: jsonShape(args), Result: result,
		At: lmp.Timestamp(time.Now()),
	})
	if len(r.calls) > maxCalls {
		r.calls = append([]driver.Call(nil), r.calls[len(r.calls)-maxCalls:]...)
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
