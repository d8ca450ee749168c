package mockhermes

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
)

// DefaultHoldTimeout bounds a hold that names no bound; MaxHoldTimeout
// bounds every hold, so that a forgotten one cannot stall Hermes for long.
const (
	DefaultHoldTimeout = 30 * time.Second
	MaxHoldTimeout     = 10 * time.Minute
)

// ErrUnknownHold is the error of a release naming no hold of this mock.
var ErrUnknownHold = errors.New("no such hold")

// hold keeps Hermes from answering one call of the adapter (driver
// POST /hold): the call that takes it waits in Hold.wait until released,
// until the bound passes, or until its caller gives up.
type hold struct {
	id       string
	call     string
	args     map[string]any // JSON-shaped
	deadline time.Time
	taken    bool          // a call waits on it, or did
	released chan struct{} // closed by release
	once     sync.Once
}

// holds are a mock's holds until their bound passes, oldest first, and
// the ids of the last maxEndedHolds that passed it, so that a release
// after the bound is no error.
type holds struct {
	mu    sync.Mutex
	list  []*hold
	ended []string
}

const maxEndedHolds = 256

// Hold arms a hold on the adapter's next call named call whose arguments
// include args (compared as JSON values), for at most timeout (the
// default when zero), and returns its id for Release.
func (m *Mock) Hold(call string, args map[string]any, timeout time.Duration) (string, error) {
	switch {
	case !slices.Contains(driver.HoldCalls, call):
		return "", errors.New("call " + call + " cannot be held (holdable: resolve_gateway_approval)")
	case timeout < 0 || timeout > MaxHoldTimeout:
		return "", errors.New("timeout_ms must be between 0 and " + MaxHoldTimeout.String())
	case timeout == 0:
		timeout = DefaultHoldTimeout
	}
	h := &hold{id: m.newID("hold_"), call: call, args: jsonShape(args), deadline: time.Now().Add(timeout), released: make(chan struct{})}
	m.holds.mu.Lock()
	defer m.holds.mu.Unlock()
	m.holds.pruneLocked()
	m.holds.list = append(m.holds.list, h)
	return h.id, nil
}

// Release ends the hold id: the call it holds, if any, is answered now. A
// hold that has ended already releases nothing.
func (m *Mock) Release(id string) error {
	m.holds.mu.Lock()
	defer m.holds.mu.Unlock()
	for _, h := range m.holds.list {
		if h.id == id {
			h.release()
			return nil
		}
	}
	if slices.Contains(m.holds.ended, id) {
		return nil
	}
	return ErrUnknownHold
}

// take returns the oldest armed hold for a call of name with args, marked
// taken, or nil.
func (hs *holds) take(name string, args map[string]any) *hold {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.pruneLocked()
	shaped := jsonShape(args)
	for _, h := range hs.list {
		if !h.taken && !h.isReleased() && h.call == name && includes(shaped, h.args) {
			h.taken = true
			return h
		}
	}
	return nil
}

// pruneLocked forgets holds whose bound has passed, keeping their ids.
func (hs *holds) pruneLocked() {
	now := time.Now()
	hs.list = slices.DeleteFunc(hs.list, func(h *hold) bool {
		if now.After(h.deadline) {
			h.release()
			hs.ended = append(hs.ended, h.id)
			return true
		}
		return false
	})
	if len(hs.ended) > maxEndedHolds {
		hs.ended = slices.Clone(hs.ended[len(hs.ended)-maxEndedHolds:])
	}
}

func (h *hold) release() { h.once.Do(func() { close(h.released) }) }

func (h *hold) isReleased() bool {
	select {
	case <-h.released:
		return true
	default:
		return false
	}
}

// wait blocks until the hold is released, its bound passes, ctx is done or
// the mock closes.
func (h *hold) wait(ctx, mockCtx context.Context) {
	t := time.NewTimer(time.Until(h.deadline))
	defer t.Stop()
	select {
	case <-h.released:
	case <-t.C:
	case <-ctx.Done():
	case <-mockCtx.Done():
	}
}

// includes reports whether every argument of want has the same JSON value
// in got.
func includes(got, want map[string]any) bool {
	for k, v := range want {
		if g, ok := got[k]; !ok || !reflect.DeepEqual(g, v) {
			return false
		}
	}
	return true
}
