package server

import (
	"context"
	"sync"

	"github.com/loomi-lmp/lmpkit/internal/bounded"
)

// idemWindow remembers the result frames of a device's last N request_ids
// of session.send and approval.resolve (I-1). The key is (device,
// request_id): each device has its own window (note 14).
type idemWindow struct {
	mu   sync.Mutex
	byID *bounded.Map[string, *idemEntry] // the last N request_ids
}

// idemEntry is one request: done closes when res is set.
type idemEntry struct {
	done chan struct{}
	res  scoped
}

func newIdemWindow(n int) *idemWindow {
	return &idemWindow{byID: bounded.New[string, *idemEntry](n)}
}

// begin returns the entry for id and whether the caller is the first to
// see it, and must execute the request and call finish. Later callers wait
// for the first one's result and send it again verbatim (I-1, note 7).
func (w *idemWindow) begin(id string) (e *idemEntry, first bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Enforces I-1: a request_id among the device's last RequestIDWindow gets the earlier result, not a rerun.
	if e, ok := w.byID.Get(id); ok {
		return e, false
	}
	e = &idemEntry{done: make(chan struct{})}
	w.byID.Put(id, e)
	return e, true
}

func (e *idemEntry) finish(res scoped) {
	e.res = res
	close(e.done)
}

// wait returns the first request's result.
func (e *idemEntry) wait(ctx context.Context) (scoped, bool) {
	select {
	case <-e.done:
		return e.res, true
	case <-ctx.Done():
		return scoped{}, false
	}
}
