package server

import (
	"errors"
	"io/fs"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// When the store refuses a write (a full or failing disk), events can no
// longer be numbered durably (note 4): a number handed out without its
// high-water mark in the store could be handed out again after a crash.
// Acknowledged means durable, as Jepsen puts it, and a full disk is an
// alarm, as etcd raises one: the server stops handing out numbers past the
// mark it holds, and says so instead of dropping events in silence:
//   - every live device gets a non-fatal error{code:"store_unavailable"},
//     and so does every device that connects while it lasts;
//   - session.send is refused with that error instead of acknowledged;
//   - GET /health answers 503 {"ok":false,"v":1,"error":reason};
//   - the write is retried in the background, and once the store takes it
//     events resume, numbered above every number ever used.

// storeRetryMax bounds the wait between two attempts to write the store
// again; the first comes after storeRetryMin.
const (
	storeRetryMin = 100 * time.Millisecond
	storeRetryMax = 2 * time.Second
)

// storeFailure is what the store's failure is while it lasts, guarded by
// Server.mu.
type storeFailure struct {
	reason  string // "" while the store takes writes
	dropped int64  // events dropped since it failed
}

// storeFailedLocked records that the store refused a write: the first
// failure of an outage tells every live device, logs, and starts the
// retries. Called with s.mu held.
func (s *Server) storeFailedLocked(err error) {
	if s.storeDown.reason != "" || s.closing {
		return
	}
	s.storeDown.reason = storeReason(err)
	s.log.Error("store refuses writes: events past the recorded seq mark are dropped until it recovers; devices are told and /health answers not ok", "err", err)
	for c := range s.live {
		c.storeUnavailable(s.storeDown.reason)
	}
	go s.retryStore()
}

// storeUnavailable queues the error that tells a device the store fails.
// It never blocks (pushForce): it is called with Server.mu held.
func (c *conn) storeUnavailable(reason string) {
	c.sendMode(lmp.Error{Code: lmp.CodeStoreUnavailable,
		Message: "the server cannot make events durable (" + reason + "): new events are held back and session.send is refused until its store recovers",
	}, nil, nil, pushForce)
}

// retryStore writes the seq mark again, backing off, until the store
// takes it or the server shuts down; then events resume.
func (s *Server) retryStore() {
	wait := storeRetryMin
	for {
		time.Sleep(wait) // a timer between retries of a failing disk
		wait = min(2*wait, storeRetryMax)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			return
		}
		next := s.events.last + seqLeaseBlock
		s.mu.Unlock()
		n, err := s.lease.persist(next)
		if err != nil {
			continue
		}
		s.mu.Lock()
		s.lease.granted = max(s.lease.granted, n)
		dropped := s.storeDown.dropped
		s.storeDown = storeFailure{}
		s.mu.Unlock()
		s.log.Info("store takes writes again: events resume", "dropped_meanwhile", dropped)
		return
	}
}

// storeFailing returns the reason the store fails, "" when it takes writes.
func (s *Server) storeFailing() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.storeDown.reason
}

// storeReason is err without the file's path, which /health, open to any
// caller, must not tell: "write: file too large".
func storeReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "store: " + pe.Op + ": " + pe.Err.Error()
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u
	}
	return "store: " + err.Error()
}
