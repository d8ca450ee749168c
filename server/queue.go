package server

import (
	"sync"
	"sync/atomic"
)

// replyQueue is a connection's bounded queue of connection-scoped frames
// (note 2), drained by its writer. Durable events never pass through it:
// the writer reads them from the shared log through its cursor, so the
// queue only ever holds replies and the odd ping (slow consumers).
type replyQueue struct {
	mu    sync.Mutex
	items []outItem // FIFO; nil while empty, so an idle connection holds nothing
	max   int
	// n is len(items), so that the writer finds an empty queue without
	// taking mu: a push after it looked is followed by a wake-up.
	n atomic.Int32
	// room receives a token when the writer takes an item, waking a
	// producer that waits for room.
	room chan struct{}
}

func newReplyQueue(max int) *replyQueue {
	return &replyQueue{max: max, room: make(chan struct{}, 1)}
}

// tryPush appends it unless the queue is full; force appends regardless
// (hello.ok, once per connection).
func (q *replyQueue) tryPush(it outItem, force bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !force && len(q.items) >= q.max {
		return false
	}
	q.items = append(q.items, it)
	q.n.Store(int32(len(q.items)))
	if len(q.items) < q.max {
		// Pass the token on: another producer may be waiting too.
		q.signal()
	}
	return true
}

// peek returns the oldest item without taking it.
func (q *replyQueue) peek() (outItem, bool) {
	if q.n.Load() == 0 {
		return outItem{}, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return outItem{}, false
	}
	return q.items[0], true
}

// drop removes the oldest item and wakes a waiting producer.
func (q *replyQueue) drop() {
	q.mu.Lock()
	q.items[0] = outItem{}
	q.items = q.items[1:]
	if len(q.items) == 0 {
		q.items = nil
	}
	q.n.Store(int32(len(q.items)))
	q.mu.Unlock()
	q.signal()
}

func (q *replyQueue) signal() {
	select {
	case q.room <- struct{}{}:
	default:
	}
}
