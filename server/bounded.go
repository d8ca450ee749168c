package server

import "iter"

// boundedMap is a map that holds at most max keys: adding a key beyond
// that forgets the oldest key added. It is not safe for concurrent use;
// its owner's lock guards it.
type boundedMap[K comparable, V any] struct {
	m     map[K]V
	order []K // oldest first
	max   int
}

func newBoundedMap[K comparable, V any](max int) *boundedMap[K, V] {
	return &boundedMap[K, V]{m: make(map[K]V), max: max}
}

// get returns the value of k.
func (b *boundedMap[K, V]) get(k K) (V, bool) {
	v, ok := b.m[k]
	return v, ok
}

// all yields the keys and values, oldest key first.
func (b *boundedMap[K, V]) all() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for _, k := range b.order {
			if !yield(k, b.m[k]) {
				return
			}
		}
	}
}

// put sets k to v. A new key is the newest; when the map is full, the
// oldest key is forgotten.
func (b *boundedMap[K, V]) put(k K, v V) {
	if _, ok := b.m[k]; !ok {
		b.order = append(b.order, k)
		if len(b.order) > b.max {
			delete(b.m, b.order[0])
			var zero K
			b.order[0] = zero
			b.order = b.order[1:]
		}
	}
	b.m[k] = v
}
