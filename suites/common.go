package suites

import (
	"encoding/json"
	"io"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

func target() *conformance.Target { return conformance.Current() }

func profile() conformance.Profile { return conformance.Current().Profile }

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
