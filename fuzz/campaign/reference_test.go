package campaign_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/fuzz/campaign"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
)

// startReference starts the reference server with the mock Hermes.
func startReference(t testing.TB) *reference.Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inst, err := reference.Start(ctx, reference.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Profile: lmp.Profile{ApprovalTimeout: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		inst.Close(ctx)
	})
	return inst
}

// TestCampaignAgainstReference runs a short campaign, driver included,
// against the reference server: it must end with a report and no
// findings. LMPKIT_FUZZ_DURATION lengthens it (the 60-second run).
func TestCampaignAgainstReference(t *testing.T) {
	inst := startReference(t)
	dur := 3 * time.Second
	if v := os.Getenv("LMPKIT_FUZZ_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		dur = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur+3*time.Minute)
	defer cancel()
	out := t.TempDir()
	rep, err := campaign.Run(ctx, campaign.Config{URL: inst.WSURL, DriverURL: inst.DriverURL, Duration: dur, Seed: 2026, Conns: 4, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep.Summary())
	if !rep.OK {
		for _, f := range rep.Findings {
			if raw, err := os.ReadFile(f.Reproducer); err == nil {
				if len(raw) > 3000 {
					raw = raw[:3000]
				}
				t.Logf("%s:\n%s", f.Reproducer, raw)
			}
		}
		t.Fatalf("findings against the reference server:\n%s", rep.Summary())
	}
	if rep.FramesSent == 0 || rep.Monitor.Events == 0 || rep.Driver == nil || rep.Driver.Events == 0 {
		t.Fatalf("the campaign did too little:\n%s", rep.Summary())
	}
}

// BenchmarkCampaign measures a campaign's throughput against the reference
// server (frames/s, reported as a metric; docs/fuzzing.md records the
// figure). Each iteration is a 5-second campaign with 8 connections.
func BenchmarkCampaign(b *testing.B) {
	inst := startReference(b)
	for b.Loop() {
		rep, err := campaign.Run(context.Background(), campaign.Config{URL: inst.WSURL, DriverURL: inst.DriverURL,
			Duration: 5 * time.Second, Seed: 1, Conns: 8, ShrinkBudget: -1})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK {
			b.Fatalf("findings:\n%s", rep.Summary())
		}
		b.ReportMetric(rep.FramesPerSecond, "frames/s")
	}
}
