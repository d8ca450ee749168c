package mockhermes

import (
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// maxHooks bounds the hook log, as maxCalls bounds the calls: the oldest
// hooks go first. A turn's deltas can outnumber it; a spec reads the log
// long before its own hooks would go.
const maxHooks = 10000

// maxHookBytes bounds the hook log in bytes (as approxSize counts them),
// besides maxHooks in entries: a long chat of long messages makes every
// pre_llm_call's conversation_history long, and ten thousand of them held
// gigabytes.
const maxHookBytes = 32 << 20

// hookLog keeps the hooks delivered to the adapter, in the order their
// callbacks returned, bounded by maxHooks and maxHookBytes.
type hookLog struct{ log boundedLog[driver.Hook] }

// add records hook name, whose callback has just returned, with kwargs as
// the adapter received them (a copy taken before the call), of size bytes
// as approxSize counts them.
func (l *hookLog) add(name string, kwargs map[string]any, size int) {
	l.log.add(size, func(seq int64) driver.Hook {
		return driver.Hook{Seq: seq, Name: name, Kwargs: kwargs, At: lmp.Timestamp(time.Now())}
	})
}

// Hooks returns the hooks delivered to the adapter, oldest first: each once
// the adapter's callback has returned, with its kwargs as delivered.
func (m *Mock) Hooks() []driver.Hook { return m.hookLog.log.list() }

// ClearHooks forgets the delivered hooks; numbering continues.
func (m *Mock) ClearHooks() { m.hookLog.log.clear() }
