package server

import (
	"errors"
	"fmt"
	"sync"

	"github.com/loomi-lmp/lmpkit/server/store"
)

// seqLease is the persisted high-water mark of global event indices (note
// 4): a number is used only once the store holds a mark at or above it, so
// after a crash numbering resumes above every number ever used. The next
// block is reserved in the background when half of the current one is
// used, so that publishing an event does not wait for the disk; it waits
// only when events come faster than the store can record a block.
type seqLease struct {
	store *store.Store

	mu     sync.Mutex // serialises the store's writes; taken after Server.mu, never before
	stored int64      // the mark in the store (mu)
	final  bool       // Shutdown recorded the exact mark: no more writes (mu)

	// Guarded by Server.mu.
	granted int64 // global indices up to this one may be used
	ahead   bool  // a background reservation is running
}

// persist records a mark of at least next in the store, never lowering it,
// and returns the mark it holds.
func (l *seqLease) persist(next int64) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.final {
		return l.stored, fmt.Errorf("server: seq lease: server shut down")
	}
	if next <= l.stored {
		return l.stored, nil
	}
	if err := l.store.SetSeqLease(next); err != nil {
		return l.stored, fmt.Errorf("server: persist seq lease: %w", err)
	}
	l.stored = next
	return next, nil
}

// finish records the exact mark last at a clean stop, so that devices that
// saw every event are not told their gap is truncated after the restart.
// No write follows it.
func (l *seqLease) finish(last int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.final = true
	return l.store.SetSeqLease(last)
}

// reserveLocked makes sure the next global index may be used, waiting for
// the store when the lease is used up, and starts the reservation of the
// next block in the background when half of this one is used (E-2, note
// 4). Called with s.mu held.
func (s *Server) reserveLocked() error {
	l := &s.lease
	if s.events.last+1 > l.granted {
		if s.storeDown.reason != "" {
			// retryStore writes it; not every event against a failing disk.
			return errors.New("server: the store refuses writes: " + s.storeDown.reason)
		}
		n, err := l.persist(s.events.last + seqLeaseBlock)
		if err != nil {
			s.storeFailedLocked(err)
			return err
		}
		l.granted = n
	}
	if !l.ahead && s.storeDown.reason == "" && l.granted-s.events.last <= seqLeaseBlock/2 {
		l.ahead = true
		next := l.granted + seqLeaseBlock
		go func() {
			n, err := l.persist(next)
			s.mu.Lock()
			defer s.mu.Unlock()
			l.ahead = false
			if err != nil {
				if !l.final {
					s.storeFailedLocked(err)
				}
				return
			}
			l.granted = max(l.granted, n)
		}()
	}
	return nil
}
