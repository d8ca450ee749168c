package suites

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// target is the target the running spec checks, which its context carries.
func target(ctx context.Context) *conformance.Target { return conformance.TargetOf(ctx) }

// profile is the running spec's target's timings and windows.
func profile(ctx context.Context) lmp.Profile { return conformance.TargetOf(ctx).Profile }

// slack is the tolerance of a timing check: a fifth of d, at least one
// second, for scheduling and network delays on a loaded CI machine.
func slack(d time.Duration) time.Duration {
	return max(d/5, time.Second)
}

// rawPayload decodes a frame's payload into a generic map, to check which
// fields are present.
func rawPayload(f client.Frame) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(f.Payload, &m)
	return m
}

// rawEnvelope decodes a frame into a generic map.
func rawEnvelope(f client.Frame) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(f.Raw, &m)
	return m
}

func ptr[T any](v T) *T { return &v }

func decodeJSON(r io.Reader, v any) error {
	return json.NewDecoder(io.LimitReader(r, 1<<20)).Decode(v)
}
