package suites

import (
	"encoding/json"
	"io"
	"time"

	"github.com/onsi/gomega"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// Short names for the specs.
var (
	Expect        = gomega.Expect
	Equal         = gomega.Equal
	BeTrue        = gomega.BeTrue
	BeFalse       = gomega.BeFalse
	HaveKey       = gomega.HaveKey
	BeNumerically = gomega.BeNumerically
)

func target() *conformance.Target { return conformance.Current() }

func profile() conformance.Profile { return conformance.Current().Profile }

// slack is the tolerance of a timing check: a fifth of d, at least one
// second, for scheduling and network delays on a loaded CI machine.
func slack(d time.Duration) time.Duration {
	return max(d/5, time.Second)
}

// rawEnvelope decodes a frame into a generic map.
func rawEnvelope(f client.Frame) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(f.Raw, &m)
	return m
}

func ptr[T any](v T) *T { return &v }

// gomegaBeAssignableToFloat matches JSON numbers as encoding/json decodes
// them into any.
func gomegaBeAssignableToFloat() gomega.OmegaMatcher {
	return gomega.BeAssignableToTypeOf(float64(0))
}

func gomegaMatchRegexp(re string) gomega.OmegaMatcher { return gomega.MatchRegexp(re) }

func gomegaHaveOccurred() gomega.OmegaMatcher { return gomega.HaveOccurred() }

func gomegaBeNil() gomega.OmegaMatcher { return gomega.BeNil() }

func decodeJSON(r io.Reader, v any) error {
	return json.NewDecoder(io.LimitReader(r, 1<<20)).Decode(v)
}

func gomegaBeElementOf(v ...any) gomega.OmegaMatcher { return gomega.BeElementOf(v...) }

func gomegaContainElement(v any) gomega.OmegaMatcher { return gomega.ContainElement(v) }

func gomegaBeEmpty() gomega.OmegaMatcher { return gomega.BeEmpty() }

func gomegaHaveLen(n int) gomega.OmegaMatcher { return gomega.HaveLen(n) }

func gomegaContainSubstring(s string) gomega.OmegaMatcher { return gomega.ContainSubstring(s) }
