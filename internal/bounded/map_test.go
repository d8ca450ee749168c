package bounded

import (
	"maps"
	"slices"
	"testing"
)

func keys[K comparable, V any](b *Map[K, V]) []K {
	return slices.Collect(maps.Keys(maps.Collect(b.All())))
}

func order[K comparable, V any](b *Map[K, V]) []K {
	var ks []K
	for k := range b.All() {
		ks = append(ks, k)
	}
	return ks
}

func TestPutForgetsTheOldest(t *testing.T) {
	b := New[string, int](3)
	for i, k := range []string{"a", "b", "c", "d"} {
		b.Put(k, i)
	}
	if got, want := order(b), []string{"b", "c", "d"}; !slices.Equal(got, want) {
		t.Fatalf("after putting a, b, c, d into a map of 3: keys %v, want %v", got, want)
	}
	if _, ok := b.Get("a"); ok {
		t.Fatal(`Get("a") found the oldest key, which a fourth key should have pushed out`)
	}
	if v, ok := b.Get("d"); !ok || v != 3 {
		t.Fatalf(`Get("d") = %d, %v; want 3, true`, v, ok)
	}
	if b.Len() != 3 {
		t.Fatalf("Len() = %d, want 3", b.Len())
	}
}

func TestPutAgainKeepsThePlace(t *testing.T) {
	b := New[string, int](2)
	b.Put("a", 1)
	b.Put("b", 2)
	b.Put("a", 3) // not a new key: b stays the newest
	b.Put("c", 4)
	if got, want := order(b), []string{"b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("keys %v, want %v: setting a key again must not make it newer", got, want)
	}
}

func TestDelete(t *testing.T) {
	b := New[int, string](3)
	for i := range 3 {
		b.Put(i, "v")
	}
	b.Delete(1)
	b.Delete(7) // absent: nothing happens
	if got, want := order(b), []int{0, 2}; !slices.Equal(got, want) {
		t.Fatalf("after Delete(1): keys %v, want %v", got, want)
	}
	b.Put(3, "v")
	b.Put(4, "v") // full again at 3: 0 goes
	if got, want := order(b), []int{2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	if len(keys(b)) != b.Len() {
		t.Fatalf("All yields %d keys, Len says %d", len(keys(b)), b.Len())
	}
}

func TestAllStopsWhenAsked(t *testing.T) {
	b := New[int, int](4)
	for i := range 4 {
		b.Put(i, i)
	}
	n := 0
	for range b.All() {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("ranged over %d keys after break at 2", n)
	}
}

func TestNewRefusesNoRoom(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New(0) did not panic: a map that can hold nothing would forget every key at once")
		}
	}()
	New[int, int](0)
}

// FuzzMap checks Map against a model: a slice of the last max distinct
// keys, oldest first, and the values last put.
func FuzzMap(f *testing.F) {
	f.Add(uint8(3), []byte("abcabcdeaa"))
	f.Add(uint8(1), []byte("aab"))
	f.Add(uint8(2), []byte("a-ab-bc"))
	f.Fuzz(func(t *testing.T, size uint8, ops []byte) {
		max := int(size%8) + 1
		b := New[byte, int](max)
		var model []byte
		vals := map[byte]int{}
		for i, op := range ops {
			k := 'a' + op%6
			if op%7 == 0 { // delete
				b.Delete(k)
				if j := slices.Index(model, k); j >= 0 {
					model = slices.Delete(model, j, j+1)
				}
				continue
			}
			b.Put(k, i)
			vals[k] = i
			if !slices.Contains(model, k) {
				model = append(model, k)
				if len(model) > max {
					model = model[1:]
				}
			}
		}
		if got := order(b); !slices.Equal(got, model) {
			t.Fatalf("max %d, ops %q: keys %q, want %q", max, ops, got, model)
		}
		for _, k := range model {
			if v, ok := b.Get(k); !ok || v != vals[k] {
				t.Fatalf("Get(%q) = %d, %v; want %d, true", k, v, ok, vals[k])
			}
		}
	})
}
