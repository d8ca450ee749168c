package mockhermes

import (
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// maxCalls bounds the recording; the oldest calls go first. A test reads
// and clears it long before this matters.
const maxCalls = 10000

// maxCallBytes bounds the recording in bytes (approxSize of the calls'
// arguments), besides maxCalls in entries: handle_message carries a
// message of up to 64 Ki characters.
const maxCallBytes = 32 << 20

// recorder keeps every call the adapter made into Hermes, in order,
// bounded by maxCalls and maxCallBytes.
type recorder struct{ log boundedLog[driver.Call] }

func (r *recorder) add(name string, args map[string]any, result any) {
	r.record(name, args, result, false)
}

// addHeld records a call Hermes has not answered yet (held) and returns
// its seq, for answered.
func (r *recorder) addHeld(name string, args map[string]any) int64 {
	return r.record(name, args, nil, true)
}

func (r *recorder) record(name string, args map[string]any, result any, held bool) int64 {
	shaped := jsonShape(args)
	return r.log.add(approxSize(shaped), func(seq int64) driver.Call {
		return driver.Call{Seq: seq, Name: name, Args: shaped, Result: result, At: lmp.Timestamp(time.Now()), Held: held}
	})
}

// answered gives the held call seq its result.
func (r *recorder) answered(seq int64, result any) {
	r.log.update(func(c *driver.Call) bool {
		if c.Seq != seq {
			return false
		}
		c.Held, c.Result = false, result
		return true
	})
}

// Calls returns the recorded calls, oldest first.
func (m *Mock) Calls() []driver.Call { return m.rec.log.list() }

// ClearCalls forgets the recorded calls; numbering continues.
func (m *Mock) ClearCalls() { m.rec.log.clear() }

// none is Python's None for an empty optional string argument.
func none(s string) any {
	if s == "" {
		return nil
	}
	return s
}
