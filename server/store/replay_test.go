package store

import (
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestSavedReplayRoundTrip: a saved buffer comes back as saved, a new one
// replaces it whole, and a damaged record is reported without keeping
// the store from opening.
func TestSavedReplayRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if evs, err := s.SavedReplay(); err != nil || evs != nil {
		t.Fatalf("a new store's saved buffer: %v, %v; want none", evs, err)
	}
	first := []SavedEvent{{7, []byte(`{"a":1}`)}, {8, []byte(`{"b":2}`)}, {9, []byte(`{"c":3}`)}}
	if err := s.SaveReplay(first); err != nil {
		t.Fatal(err)
	}
	second := []SavedEvent{{10, []byte(`{"d":4}`)}, {11, []byte(`{"e":5}`)}}
	if err := s.SaveReplay(second); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SavedReplay()
	if err != nil || len(got) != 2 || got[0].Index != 10 || string(got[1].Frame) != `{"e":5}` {
		t.Fatalf("after a reopen: %+v, %v; want the second buffer only", got, err)
	}
	s.Close()

	// A byte changed on disk under the checksum: Open still opens, the
	// buffer is reported damaged, naming the event.
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReplay)
		k, v := b.Cursor().Last()
		v = append([]byte(nil), v...)
		v[len(v)-2] = '6'
		return b.Put(append([]byte(nil), k...), v)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, nil)
	if err != nil {
		t.Fatalf("a damaged saved buffer kept the store from opening: %v", err)
	}
	defer s.Close()
	if _, err := s.SavedReplay(); err == nil || !strings.Contains(err.Error(), "event 11 fails its checksum") {
		t.Fatalf("damaged saved buffer: %v, want event 11 named as failing its checksum", err)
	}
}
