package mockhermes

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// Faults imitate how Hermes delivers hooks under load
// (agent/plugin_stream_hooks.py). Stream hooks run off the agent thread, one
// bounded FIFO and one worker per (hook, callback): within one hook they
// keep their order, across hooks they have none, and a full queue drops its
// oldest event. All off by default, so that a trace is reproducible.
type Faults struct {
	// Interleave delivers stream hooks the way Hermes does: one queue of
	// StreamQueueSize and one worker per hook, oldest dropped when full, no
	// order across hooks (a delta may arrive after its call's end, an
	// on_session_end before the last on_stream_end).
	Interleave bool
	// Reorder holds back each model call's last on_stream_delta and
	// delivers it after that call's on_stream_end: one interleaving,
	// reproducibly.
	Reorder bool
	// DropEvery drops every n-th on_stream_delta, as a full queue drops its
	// oldest events; 0 drops none.
	DropEvery int
	// Duplicate delivers every on_stream_end and post_tool_call twice.
	// Beyond Hermes: Hermes never delivers a hook twice. It stays for
	// adapters that want to be robust to more than Hermes does.
	Duplicate bool
}

// Any reports whether any fault is on.
func (f Faults) Any() bool { return f.Interleave || f.Reorder || f.DropEvery > 0 || f.Duplicate }

// merge turns on every fault that is on in either.
func (f Faults) merge(o Faults) Faults {
	f.Interleave = f.Interleave || o.Interleave
	f.Reorder = f.Reorder || o.Reorder
	f.Duplicate = f.Duplicate || o.Duplicate
	if o.DropEvery > 0 {
		f.DropEvery = o.DropEvery
	}
	return f
}

// StreamQueueSize is the bound of each stream hook's queue in Hermes.
const StreamQueueSize = 1024

// MaxStreamPayload is the size above which Hermes drops a stream hook's
// payload whole (_MAX_OBSERVER_EVENT_BYTES). Hermes measures Python object
// sizes; the mock measures the payload's JSON encoding, so "about 16 KiB".
const MaxStreamPayload = 16 * 1024

// dispatcher delivers stream hooks to the adapter: in order on the caller's
// goroutine, or, with Faults.Interleave, through one queue and worker per
// hook like Hermes.
type dispatcher struct {
	m       *Mock
	mu      sync.Mutex
	queues  map[string]*hookQueue
	wg      sync.WaitGroup
	closed  bool
	dropped map[string]int // by hook: oversize or overflow
}

type hookQueue struct {
	mu     sync.Mutex
	items  []queued
	wake   chan struct{}
	closed bool
}

type queued struct {
	ctx context.Context
	kw  map[string]any
}

func newDispatcher(m *Mock) *dispatcher {
	return &dispatcher{m: m, queues: map[string]*hookQueue{}, dropped: map[string]int{}}
}

// stream delivers a stream hook whose payload is within the size bound.
func (d *dispatcher) stream(ctx context.Context, f Faults, name string, kw map[string]any) {
	if !f.Interleave {
		d.m.deliver(ctx, name, kw)
		return
	}
	q := d.queue(name)
	if q == nil {
		return
	}
	q.mu.Lock()
	if len(q.items) >= StreamQueueSize {
		q.items = q.items[1:] // drop the oldest, like _put_drop_oldest
		q.mu.Unlock()
		d.drop(name, "queue full, oldest dropped")
		q.mu.Lock()
	}
	q.items = append(q.items, queued{ctx: context.WithoutCancel(ctx), kw: kw})
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (d *dispatcher) drop(name, why string) {
	d.mu.Lock()
	d.dropped[name]++
	d.mu.Unlock()
	d.m.log.Debug("mockhermes: plugin observer event dropped", "hook", name, "why", why)
}

// Dropped reports how many stream hooks of each name Hermes' dispatch
// dropped (oversize payloads, full queues).
func (m *Mock) Dropped() map[string]int {
	m.out.mu.Lock()
	defer m.out.mu.Unlock()
	return maps.Clone(m.out.dropped)
}

func (d *dispatcher) queue(name string) *hookQueue {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	q := d.queues[name]
	if q == nil {
		q = &hookQueue{wake: make(chan struct{}, 1)}
		d.queues[name] = q
		d.wg.Add(1)
		go d.work(name, q)
	}
	return q
}

// work is one hook's worker: FIFO within the hook.
func (d *dispatcher) work(name string, q *hookQueue) {
	defer d.wg.Done()
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			closed := q.closed
			q.mu.Unlock()
			if closed {
				return
			}
			<-q.wake
			continue
		}
		it := q.items[0]
		q.items = q.items[1:]
		q.mu.Unlock()
		d.m.deliver(it.ctx, name, it.kw)
	}
}

// close lets every worker drain its queue and end.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	qs := make([]*hookQueue, 0, len(d.queues))
	for _, q := range d.queues {
		qs = append(qs, q)
	}
	d.mu.Unlock()
	for _, q := range qs {
		q.mu.Lock()
		q.closed = true
		q.mu.Unlock()
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
	d.wg.Wait()
}

// turnFaults applies one turn's reproducible faults (Reorder, DropEvery,
// Duplicate) before Hermes' dispatch. It is used by one goroutine only.
type turnFaults struct {
	m      *Mock
	f      Faults
	deltas int
	held   map[string]any // a delta held back by Reorder
}

// fire fires a hook built from its typed kwargs, through the faults.
func (d *turnFaults) fire(ctx context.Context, a hermes.Args) {
	d.hook(ctx, a.HookName(), hermes.Encode(a))
}

// firePreLLMCall fires pre_llm_call with h as its conversation_history.
// The faults leave the hook alone, and Hermes calls it on the agent's
// goroutine, as hookWith delivers any hook that is not a stream hook; h's
// messages are in decoded JSON's shape and sized already (history).
func (d *turnFaults) firePreLLMCall(ctx context.Context, a hermes.PreLLMCall, h history) {
	a.ConversationHistory = nil
	kw := jsonShape(hermes.Encode(a))
	size := approxSize(kw) - approxSize([]any{}) + h.size()
	kw["conversation_history"] = append([]any{}, h.msgs...) // a list of its own, empty rather than None, as Hermes passes it
	d.m.deliverSized(ctx, a.HookName(), kw, size)
}

func (d *turnFaults) hook(ctx context.Context, name string, kw map[string]any) {
	switch name {
	case "on_stream_delta":
		d.deltas++
		if d.f.DropEvery > 0 && d.deltas%d.f.DropEvery == 0 {
			return
		}
		if d.f.Reorder {
			if d.held != nil {
				d.m.hookWith(ctx, d.f, name, d.held)
			}
			d.held = kw
			return
		}
	case "on_stream_end":
		d.m.hookWith(ctx, d.f, name, maps.Clone(kw))
		if d.held != nil {
			d.m.hookWith(ctx, d.f, "on_stream_delta", d.held) // late: after its end
			d.held = nil
		}
		if d.f.Duplicate {
			d.m.hookWith(ctx, d.f, name, kw)
		}
		return
	case "post_tool_call":
		if d.f.Duplicate {
			d.m.hookWith(ctx, d.f, name, maps.Clone(kw))
		}
	}
	d.m.hookWith(ctx, d.f, name, kw)
}

// ParseFaults reads a comma-separated list of delivery behaviours, as
// lmp-server --hermes-quirks takes it: "interleave", "reorder", "drop=N"
// (drop every N-th on_stream_delta) and "duplicate" (beyond Hermes). The
// empty string is none.
func ParseFaults(spec string) (Faults, error) {
	var f Faults
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		name, value, hasValue := strings.Cut(item, "=")
		switch {
		case item == "":
		case name == "interleave" && !hasValue:
			f.Interleave = true
		case name == "reorder" && !hasValue:
			f.Reorder = true
		case name == "duplicate" && !hasValue:
			f.Duplicate = true
		case name == "drop" && hasValue:
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return Faults{}, fmt.Errorf("quirk %q: drop takes a whole number of deltas from 1 up (drop=3 drops every third)", item)
			}
			f.DropEvery = n
		default:
			return Faults{}, fmt.Errorf("unknown quirk %q: want interleave, reorder, drop=N or duplicate (duplicate is beyond Hermes)", item)
		}
	}
	return f, nil
}
