package mockhermes

import "sync"

// boundedLog is a numbered, append-only recording bounded in entries and
// in bytes: the recorded calls (recorder) and the delivered hooks
// (hookLog). The oldest entries go first, the newest is always kept. It
// is trimmed only once it is a quarter over a bound, so that a long
// stream of entries trims once per quarter, not once per entry; list
// shows the newest maxEntries.
type boundedLog[T any] struct {
	maxEntries, maxBytes int

	mu      sync.Mutex
	seq     int64
	entries []T
	sizes   []int // approxSize of each entry's payload
	bytes   int   // their sum
}

// add records the entry entry(seq), whose payload is about size bytes
// (approxSize), under the next seq, and returns that seq.
func (l *boundedLog[T]) add(size int, entry func(seq int64) T) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	l.entries = append(l.entries, entry(l.seq))
	l.sizes = append(l.sizes, size)
	l.bytes += size
	if len(l.entries) <= l.maxEntries+l.maxEntries/4 && l.bytes <= l.maxBytes+l.maxBytes/4 {
		return l.seq
	}
	drop := max(0, len(l.entries)-l.maxEntries)
	for _, n := range l.sizes[:drop] {
		l.bytes -= n
	}
	for l.bytes > l.maxBytes && drop < len(l.entries)-1 {
		l.bytes -= l.sizes[drop]
		drop++
	}
	if drop > 0 { // copied, so that the dropped entries' payloads can go
		l.entries = append([]T(nil), l.entries[drop:]...)
		l.sizes = append([]int(nil), l.sizes[drop:]...)
	}
	return l.seq
}

// update calls f on the entries, newest last, until it returns true.
func (l *boundedLog[T]) update(f func(*T) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.entries {
		if f(&l.entries[i]) {
			return
		}
	}
}

// list returns the newest maxEntries entries, oldest first.
func (l *boundedLog[T]) list() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T{}, l.entries[max(0, len(l.entries)-l.maxEntries):]...)
}

// clear forgets the entries; numbering continues.
func (l *boundedLog[T]) clear() {
	l.mu.Lock()
	l.entries, l.sizes, l.bytes = nil, nil, 0
	l.mu.Unlock()
}
