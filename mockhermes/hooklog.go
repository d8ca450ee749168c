package mockhermes

import (
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// maxHooks bounds the hook log, as maxCalls bounds the calls: the oldest
// hooks go first. A turn's deltas can outnumber it; a spec reads the log
// long before its own hooks would go.
const maxHooks = 10000

// hookSlack is how far the log may grow past maxHooks before it is trimmed.
const hookSlack = maxHooks / 4

// maxHookBytes bounds the hook log in bytes (as approxSize counts them),
// besides maxHooks in entries: a long chat of long messages makes every
// pre_llm_call's conversation_history long, and ten thousand of them held
// gigabytes. The oldest hooks go first, once the log is a quarter over
// the bound; the newest is always kept.
const maxHookBytes = 32 << 20

// hookLog keeps the hooks delivered to the adapter, in the order their
// callbacks returned. It holds up to maxHooks+hookSlack entries between
// trims, so that a long stream of hooks trims once per hookSlack hooks,
// not once per hook; list shows the newest maxHooks.
type hookLog struct {
	mu    sync.Mutex
	seq   int64
	hooks []driver.Hook
	sizes []int // approxSize of each hook's kwargs
	bytes int   // their sum
}

// add records hook name, whose callback has just returned, with kwargs as
// the adapter received them (a copy taken before the call).
func (l *hookLog) add(name string, kwargs map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	l.hooks = append(l.hooks, driver.Hook{Seq: l.seq, Name: name, Kwargs: kwargs, At: lmp.Timestamp(time.Now())})
	n := approxSize(kwargs)
	l.sizes = append(l.sizes, n)
	l.bytes += n
	if len(l.hooks) < maxHooks+hookSlack && l.bytes <= maxHookBytes+maxHookBytes/4 {
		return // trimmed once per slack, not once per hook
	}
	drop := max(0, len(l.hooks)-maxHooks)
	for _, n := range l.sizes[:drop] {
		l.bytes -= n
	}
	for l.bytes > maxHookBytes && drop < len(l.hooks)-1 {
		l.bytes -= l.sizes[drop]
		drop++
	}
	if drop > 0 { // copied, so that the dropped hooks' kwargs can go
		l.hooks = append([]driver.Hook(nil), l.hooks[drop:]...)
		l.sizes = append([]int(nil), l.sizes[drop:]...)
	}
}

func (l *hookLog) list() []driver.Hook {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]driver.Hook{}, l.hooks[max(0, len(l.hooks)-maxHooks):]...)
}

func (l *hookLog) clear() {
	l.mu.Lock()
	l.hooks, l.sizes, l.bytes = nil, nil, 0
	l.mu.Unlock()
}

// Hooks returns the hooks delivered to the adapter, oldest first: each once
// the adapter's callback has returned, with its kwargs as delivered.
func (m *Mock) Hooks() []driver.Hook { return m.hookLog.list() }

// ClearHooks forgets the delivered hooks; numbering continues.
func (m *Mock) ClearHooks() { m.hookLog.clear() }
