package mockhermes

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// countingAdapter counts hooks and does nothing else.
type countingAdapter struct{ hooks, ends atomic.Int64 }

func (c *countingAdapter) Hook(_ context.Context, name string, _ map[string]any) {
	c.hooks.Add(1)
	if name == "on_session_end" {
		c.ends.Add(1)
	}
}
func (c *countingAdapter) SupportsExecApprovalButtons() bool { return true }
func (c *countingAdapter) SendExecApprovalPrompt(context.Context, hermes.ExecApprovalPrompt) error {
	return nil
}
func (c *countingAdapter) Send(context.Context, string, string, map[string]any) hermes.SendResult {
	return hermes.SendResult{Success: true}
}
func (c *countingAdapter) InterruptSessionActivity(context.Context, string, string) {}

// BenchmarkTurn plays a turn of 512 deltas and two tool calls through
// the mock: in order on the agent's goroutine (the baseline), and through
// Hermes' per-hook queues and workers (interleave). Compare the two as a
// ratio from the same run.
func BenchmarkTurn(b *testing.B) {
	script := "name: bench\nsteps:\n  - stream: \"x\"\n  - tools:\n      - {name: a, duration_ms: 0}\n      - {name: b, duration_ms: 0}\n  - stream: \"" +
		strings.Repeat("y", 4096) + "\"\n    chunk: 8\n"
	for _, mode := range []struct {
		name string
		f    Faults
	}{{"ordered", Faults{}}, {"interleave", Faults{Interleave: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			m := New(Options{Faults: mode.f})
			defer m.Close()
			a := &countingAdapter{}
			m.Attach(a)
			if err := m.LoadScriptBytes("bench.yaml", []byte(script)); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				pb, err := m.Play(ctx, "bench", nil, "chat")
				if err != nil {
					b.Fatal(err)
				}
				if err := pb.Wait(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(a.hooks.Load())/float64(a.ends.Load()), "hooks/turn")
		})
	}
}
