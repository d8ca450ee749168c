// Package bounded holds Map, a map that keeps at most a fixed number of
// keys and forgets the oldest first: the shape of every table the server
// and the dashboard keep of things peers can create without end (runs,
// sessions, approvals, request_ids, connections).
package bounded

import (
	"fmt"
	"iter"
	"slices"
)

// Map is a map that holds at most Max keys: adding a key beyond that
// forgets the oldest key added. Setting a key it holds again keeps the
// key's place. A Map is not safe for concurrent use; its owner's lock
// guards it.
type Map[K comparable, V any] struct {
	m     map[K]V
	order []K // oldest first
	max   int
}

// New returns an empty Map that holds at most max keys. It panics when
// max is less than 1, a programming error.
func New[K comparable, V any](max int) *Map[K, V] {
	if max < 1 {
		panic(fmt.Sprintf("bounded.New: max %d, want at least 1", max))
	}
	return &Map[K, V]{m: make(map[K]V), max: max}
}

// Get returns the value of k and whether the map holds k.
func (b *Map[K, V]) Get(k K) (V, bool) {
	v, ok := b.m[k]
	return v, ok
}

// Put sets k to v. A new key is the newest; when the map is full, the
// oldest key is forgotten to make room for it.
func (b *Map[K, V]) Put(k K, v V) {
	if _, ok := b.m[k]; !ok {
		if len(b.order) >= b.max {
			b.forgetOldest()
		}
		b.order = append(b.order, k)
	}
	b.m[k] = v
}

// forgetOldest removes the oldest key.
func (b *Map[K, V]) forgetOldest() {
	delete(b.m, b.order[0])
	var zero K
	b.order[0] = zero // let the key's memory go
	b.order = b.order[1:]
}

// Delete forgets k.
func (b *Map[K, V]) Delete(k K) {
	if _, ok := b.m[k]; !ok {
		return
	}
	delete(b.m, k)
	i := slices.Index(b.order, k)
	b.order = slices.Delete(b.order, i, i+1)
}

// Len is the number of keys held.
func (b *Map[K, V]) Len() int { return len(b.order) }

// All yields the keys and values, oldest key first.
func (b *Map[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for _, k := range b.order {
			if !yield(k, b.m[k]) {
				return
			}
		}
	}
}
