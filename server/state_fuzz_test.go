package server

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// FuzzEventLog drives the replay buffer (E-5, E-6) with a sequence of
// operations and checks it against a model: the list of every event ever
// added, of which the last `window` are held. Each byte of ops is one
// operation: an even byte adds an event, an odd one asks for the events
// after an index b/2 below the newest.
func FuzzEventLog(f *testing.F) {
	f.Add(uint8(4), int64(0), []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 3, 7, 9})
	f.Add(uint8(1), int64(1000), []byte{0, 1, 3, 0, 0, 5})
	f.Add(uint8(16), int64(0), []byte{1, 0, 1})
	f.Fuzz(func(t *testing.T, window uint8, start int64, ops []byte) {
		w := int(window%32) + 1
		if start < 0 || start > 1<<40 {
			start = 0
		}
		log := newEventLog(w, start)
		var model []int64 // global indices of every added event
		last := start
		for _, op := range ops {
			if op%2 == 0 {
				e := newEvent("notification", time.Unix(0, 0), nil, nil, json.RawMessage(`{}`))
				log.add(e)
				last++
				model = append(model, last)
				if e.g != last {
					t.Fatalf("added event has index %d, want %d", e.g, last)
				}
				continue
			}
			after := last - int64(op/2)
			held := model[max(0, len(model)-w):]
			oldest := last + 1
			if len(held) > 0 {
				oldest = held[0]
			}
			// E-6: the answer is complete only when nothing after `after`
			// has been dropped from the window.
			wantComplete := after+1 >= oldest
			var want []int64
			for _, g := range held {
				if g > after {
					want = append(want, g)
				}
			}
			evs, complete := log.since(after)
			var got []int64
			for _, e := range evs {
				got = append(got, e.g)
			}
			if complete != wantComplete || !slices.Equal(got, want) {
				t.Fatalf("window %d, last %d: since(%d) = %v complete %v; want %v complete %v", w, last, after, got, complete, want, wantComplete)
			}
		}
	})
}

// FuzzIdemWindow drives the request_id window (I-1) with a sequence of
// request ids and checks it against a model: a request is new exactly when
// its id is not among the window's last `max` distinct ids, and a repeat
// gets the same entry, hence the same result, as the first.
func FuzzIdemWindow(f *testing.F) {
	f.Add(uint8(3), []byte("abcabcdeaa"))
	f.Add(uint8(1), []byte("aab"))
	f.Add(uint8(255), []byte("zzzz"))
	f.Fuzz(func(t *testing.T, size uint8, ids []byte) {
		n := int(size%16) + 1
		w := newIdemWindow(n)
		var order []string // model: the last n distinct ids, oldest first
		entries := map[string]*idemEntry{}
		for _, b := range ids {
			id := string(rune('a' + b%8))
			e, first := w.begin(id)
			wantFirst := !slices.Contains(order, id)
			if first != wantFirst {
				t.Fatalf("window %d after %v: begin(%q) first = %v, want %v", n, order, id, first, wantFirst)
			}
			if first {
				e.finish(scoped{})
				entries[id] = e
				order = append(order, id)
				if len(order) > n {
					order = order[1:]
				}
			} else if entries[id] != e {
				t.Fatalf("a repeated request_id %q got another entry than the first (I-1)", id)
			}
		}
	})
}
