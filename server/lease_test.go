package server

import (
	"context"
	"testing"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/server/store"
)

// TestSeqLeaseCoversEveryPublishedEvent publishes several blocks' worth
// of events while the next block is reserved in the background: after
// every event the store's mark is at or above it (note 4, E-2), and a
// clean shutdown records the exact mark even with a reservation in flight.
func TestSeqLeaseCoversEveryPublishedEvent(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Config{Name: "lease", DataDir: dir, Hermes: struct{ hermes.Hermes }{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 * seqLeaseBlock {
		s.publish("notification", nil, nil, map[string]int{"i": i})
		s.mu.Lock()
		last := s.events.last
		s.mu.Unlock()
		s.lease.mu.Lock()
		stored := s.lease.stored
		s.lease.mu.Unlock()
		if stored < last {
			t.Fatalf("event %d used above the stored mark %d", last, stored)
		}
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mark, err := st.SeqLease()
	if err != nil {
		t.Fatal(err)
	}
	if mark != 5*seqLeaseBlock {
		t.Fatalf("clean shutdown recorded %d, want the exact mark %d", mark, 5*seqLeaseBlock)
	}
}
