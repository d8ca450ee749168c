package mockhermes

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// Faults imitate Hermes' own delivery quirks. Stream hooks run on separate
// workers with bounded queues, so start, delta and end of one model call are
// not guaranteed to arrive in order, and some may be dropped; an adapter
// must never emit contradictory frames because of it.
type Faults struct {
	// Reorder holds back each model call's last on_stream_delta and
	// delivers it after that call's on_stream_end.
	Reorder bool
	// DropEvery drops every n-th on_stream_delta; 0 drops none.
	DropEvery int
	// Duplicate delivers every on_stream_end and post_tool_call twice.
	Duplicate bool
}

// Any reports whether any fault is on.
func (f Faults) Any() bool { return f.Reorder || f.DropEvery > 0 || f.Duplicate }

// merge turns on every fault that is on in either.
func (f Faults) merge(o Faults) Faults {
	if o.Reorder {
		f.Reorder = true
	}
	if o.DropEvery > 0 {
		f.DropEvery = o.DropEvery
	}
	if o.Duplicate {
		f.Duplicate = true
	}
	return f
}

// deliverer sends one playback's hooks, applying its faults. It is used by
// one goroutine only.
type deliverer struct {
	m      *Mock
	f      Faults
	deltas int
	held   map[string]any // a delta held back by Reorder
}

func (d *deliverer) hook(ctx context.Context, name string, kw map[string]any) {
	switch name {
	case "on_stream_delta":
		d.deltas++
		if d.f.DropEvery > 0 && d.deltas%d.f.DropEvery == 0 {
			return
		}
		if d.f.Reorder {
			if d.held != nil {
				d.m.hook(ctx, name, d.held)
			}
			d.held = kw
			return
		}
	case "on_stream_end":
		d.m.hook(ctx, name, maps.Clone(kw))
		if d.held != nil {
			d.m.hook(ctx, "on_stream_delta", d.held) // late: after its end
			d.held = nil
		}
		if d.f.Duplicate {
			d.m.hook(ctx, name, kw)
		}
		return
	case "post_tool_call":
		if d.f.Duplicate {
			d.m.hook(ctx, name, maps.Clone(kw))
		}
	}
	d.m.hook(ctx, name, kw)
}

// ParseFaults reads a comma-separated list of delivery quirks, as
// lmp-server --hermes-quirks takes it: "reorder", "duplicate" and
// "drop=N" (drop every N-th on_stream_delta). The empty string is no quirk.
func ParseFaults(spec string) (Faults, error) {
	var f Faults
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		name, value, hasValue := strings.Cut(item, "=")
		switch {
		case item == "":
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
			return Faults{}, fmt.Errorf("unknown quirk %q: want reorder, duplicate or drop=N", item)
		}
	}
	return f, nil
}
