// Package store is the reference server's persistent state: paired devices
// (with only a hash of their credential), the seq high-water mark and the
// replay buffer saved at a clean shutdown (replay.go), in one bbolt file.
// The file is created 0600 in a directory created 0700.
//
// bbolt takes an exclusive lock on the file, so only one process can hold
// the store; Open fails with ErrLocked when another one does.
package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// FileName is the name of the store file inside the data directory.
const FileName = "lmp-server.db"

var (
	bucketDevices = []byte("devices")
	bucketMeta    = []byte("meta")
	keySeqLease   = []byte("seq_lease")
)

// ErrLocked is returned by Open when another process holds the store.
var ErrLocked = errors.New("store is locked by another process")

// ErrDamaged is returned by Open for a store file that is empty, truncated
// or damaged. Open never writes to such a file.
var ErrDamaged = errors.New("damaged store file")

// ErrNotFound is returned for an unknown device.
var ErrNotFound = errors.New("no such device")

// Device is one paired device. CredentialHash is the SHA-256 of the
// credential: the credential itself is never stored (P-7).
type Device struct {
	ID             string `json:"id"`
	Model          string `json:"model"`
	OS             string `json:"os"`
	AppVersion     string `json:"app_version"`
	CredentialHash []byte `json:"credential_hash"`
	// Base is the global event index at pairing: the device's seq of the
	// global event g is g - Base (E-2).
	Base      int64      `json:"base"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Revoked reports whether the device has been revoked (S-5).
func (d Device) Revoked() bool { return d.RevokedAt != nil }

// Store is an open store. Its methods are safe for concurrent use.
type Store struct {
	db   *bolt.DB
	path string
}

// Open opens (creating when needed) the store in dir. It fails with an
// error wrapping ErrLocked when another process holds it, and with one
// wrapping ErrDamaged, saying what to do, when the file is empty, truncated
// or damaged; both name the file. A data directory that others may read
// is tightened to 0700, with a warning on log (nil: none).
func Open(dir string, log *slog.Logger) (*Store, error) {
	if dir == "" {
		return nil, errors.New("store: no data directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
	if err := tightenDir(dir, log); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	if info, err := os.Stat(path); err == nil {
		// bbolt initialises a 0-byte file as a new store: every paired
		// device would be forgotten without a word.
		if info.Size() == 0 {
			return nil, damaged(path, errors.New("the file is empty (0 bytes)"))
		}
		if err := verify(path, info.Size()); err != nil {
			return nil, err
		}
	}
	db, err := openBolt(path, &bolt.Options{Timeout: 500 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	// bbolt honours the mode only when it creates the file; an older file
	// with wider permissions is tightened.
	if err := os.Chmod(path, 0o600); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketDevices, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: init: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// tightenDir makes a data directory that group or others may enter 0700:
// it holds the credential hashes of every paired device.
func tightenDir(dir string, log *slog.Logger) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("store: data directory: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("store: data directory %s is not a directory", dir)
	}
	if !unixModes {
		return nil // Windows: the directory's ACL guards it, not mode bits
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("store: data directory %s has mode %04o and cannot be made 0700: %w", dir, perm, err)
		}
		if log != nil {
			log.Warn("data directory was readable by others: tightened to 0700", "dir", dir, "was", fmt.Sprintf("%04o", perm))
		}
	}
	return nil
}

// openBolt opens the bbolt file, turning a timeout into ErrLocked and a
// panic or memory fault inside bbolt into ErrDamaged.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			db, err = nil, damaged(path, fmt.Errorf("bbolt failed reading it: %v", p))
		}
	}()
	db, err = bolt.Open(path, 0o600, o)
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("store %s: %w (is another lmp-server running?)", path, ErrLocked)
	case err != nil:
		return nil, damaged(path, err)
	}
	return db, nil
}

// verify checks an existing store read-only before anything may write to
// it: bbolt's consistency check, the file as long as its meta page says,
// both buckets, and every record decodable.
func verify(path string, size int64) (err error) {
	db, err := openBolt(path, &bolt.Options{Timeout: 500 * time.Millisecond, ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = damaged(path, fmt.Errorf("bbolt failed reading it: %v", p))
		}
	}()
	return db.View(func(tx *bolt.Tx) error {
		if tx.Size() > size {
			return damaged(path, fmt.Errorf("the file is truncated: %d bytes, its meta page says %d", size, tx.Size()))
		}
		var first error
		for cerr := range tx.Check() { // drained: the check runs on its own goroutine
			if first == nil {
				first = cerr
			}
		}
		if first != nil {
			return damaged(path, first)
		}
		devs, meta := tx.Bucket(bucketDevices), tx.Bucket(bucketMeta)
		if devs == nil || meta == nil {
			return damaged(path, errors.New("it is not an lmp-server store (no devices or meta bucket)"))
		}
		if raw := meta.Get(keySeqLease); raw != nil && len(raw) != 8 {
			return damaged(path, fmt.Errorf("the seq lease is %d bytes, want 8", len(raw)))
		}
		return devs.ForEach(func(k, raw []byte) error {
			var d Device
			if err := json.Unmarshal(raw, &d); err != nil || d.ID != string(k) {
				return damaged(path, fmt.Errorf("device record %.40q does not decode", k))
			}
			return nil
		})
	})
}

// damaged is the one-line error for a store Open will not use.
func damaged(path string, why error) error {
	return fmt.Errorf("store %s: %w: %v; lmp-server will not start on it or write to it: restore the file from a backup, "+
		"or move it aside to start with no paired devices (every app must then pair again)", path, ErrDamaged, oneLine(why.Error()))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Path is the store file's path.
func (s *Store) Path() string { return s.path }

// Close flushes and closes the store.
func (s *Store) Close() error { return s.db.Close() }

// PutDevice creates or replaces a device.
func (s *Store) PutDevice(d Device) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDevices).Put([]byte(d.ID), raw)
	})
}

// Device returns the device with the given id, or ErrNotFound.
func (s *Store) Device(id string) (Device, error) {
	var d Device
	err := s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketDevices).Get([]byte(id))
		if raw == nil {
			return ErrNotFound
		}
		return json.Unmarshal(raw, &d)
	})
	return d, err
}

// Devices lists every device, revoked ones included, oldest first.
func (s *Store) Devices() ([]Device, error) {
	var out []Device
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDevices).ForEach(func(_, raw []byte) error {
			var d Device
			if err := json.Unmarshal(raw, &d); err != nil {
				return err
			}
			out = append(out, d)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, err
}

// Revoke marks a device revoked (S-5) and returns it. Revoking a revoked
// device keeps its first revocation time.
func (s *Store) Revoke(id string, at time.Time) (Device, error) {
	var d Device
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDevices)
		raw := b.Get([]byte(id))
		if raw == nil {
			return ErrNotFound
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
		if d.RevokedAt == nil {
			d.RevokedAt = &at
		}
		raw, err := json.Marshal(d)
		if err != nil {
			return err
		}
		return b.Put([]byte(id), raw)
	})
	return d, err
}

// SeqLease returns the persisted seq high-water mark: no global event index
// above it has ever been used (note 4). 0 for a new store.
func (s *Store) SeqLease() (int64, error) {
	var v int64
	err := s.db.View(func(tx *bolt.Tx) error {
		if raw := tx.Bucket(bucketMeta).Get(keySeqLease); len(raw) == 8 {
			v = int64(binary.BigEndian.Uint64(raw))
		}
		return nil
	})
	return v, err
}

// SetSeqLease persists the high-water mark and syncs it to disk before
// returning, so that numbers below it may be used safely.
func (s *Store) SetSeqLease(v int64) error {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], uint64(v))
	return s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keySeqLease, raw[:])
	})
}
