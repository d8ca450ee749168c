package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// The replay buffer saved at a clean shutdown (note 4): one record per
// event, keyed by its global index (8 bytes, big-endian, so that bbolt
// keeps them in order), its value a CRC-32C of key and frame followed by
// the frame. bbolt checks its pages but not the values in them: the
// checksum is what tells a damaged event from a saved one. Open does not
// look at these records, so a damaged buffer never stops the store from
// opening: SavedReplay reports it, and the caller starts without it.

var bucketReplay = []byte("replay")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SavedEvent is one event of a saved replay buffer: its global index and
// the frame the server encoded it as, which the store keeps as it is.
type SavedEvent struct {
	Index int64
	Frame []byte
}

// SaveReplay replaces the saved replay buffer with evs, oldest first, in
// one transaction synced to disk before it returns: either every event is
// saved or the previous buffer is kept.
func (s *Store) SaveReplay(evs []SavedEvent) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketReplay); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		b, err := tx.CreateBucket(bucketReplay)
		if err != nil {
			return err
		}
		b.FillPercent = 1 // keys only ever ascend: pack the pages full
		for _, ev := range evs {
			var key [8]byte
			binary.BigEndian.PutUint64(key[:], uint64(ev.Index))
			val := make([]byte, 4, 4+len(ev.Frame))
			binary.BigEndian.PutUint32(val, recordSum(key[:], ev.Frame))
			if err := b.Put(key[:], append(val, ev.Frame...)); err != nil {
				return err
			}
		}
		return nil
	})
}

// SavedReplay returns the saved replay buffer, oldest first: nil when none
// was saved. A record that fails its checksum, or indices that do not
// follow one another, make it fail naming the first such record; the rest
// of the store is not affected.
func (s *Store) SavedReplay() ([]SavedEvent, error) {
	var out []SavedEvent
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReplay)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			if len(k) != 8 {
				return fmt.Errorf("record %d has a key of %d bytes, want 8", len(out)+1, len(k))
			}
			idx := int64(binary.BigEndian.Uint64(k))
			if len(out) > 0 && idx != out[len(out)-1].Index+1 {
				return fmt.Errorf("event %d follows event %d", idx, out[len(out)-1].Index)
			}
			if len(v) < 4 || binary.BigEndian.Uint32(v) != recordSum(k, v[4:]) {
				return fmt.Errorf("event %d fails its checksum", idx)
			}
			out = append(out, SavedEvent{Index: idx, Frame: append([]byte(nil), v[4:]...)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store %s: saved replay buffer: %w", s.path, err)
	}
	return out, nil
}

// recordSum is the checksum of one saved event: its key and its frame.
func recordSum(key, frame []byte) uint32 {
	return crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, frame)
}
