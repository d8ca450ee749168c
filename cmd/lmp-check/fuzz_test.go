package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/fuzz/campaign"
)

// TestFuzzCommand runs a short campaign against the in-process server,
// then replays a reproducer whose finding does not occur there.
func TestFuzzCommand(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"fuzz", "--duration", "2s", "--seed", "3", "--conns", "2", "--report", report, "--out", dir}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	// Off a terminal: the summary, and no progress line.
	if strings.Contains(stderr.String(), "\r") || !strings.Contains(stdout.String(), "seed 3") || !strings.Contains(stdout.String(), "0 findings") {
		t.Fatalf("want the summary without a progress line:\nstdout:\n%s\nstderr:\n%q", stdout.String(), stderr.String())
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep campaign.Report
	if err := json.Unmarshal(raw, &rep); err != nil || rep.Format != campaign.ReportFormat || rep.Seed != 3 || rep.FramesSent == 0 {
		t.Fatalf("report %+v, %v", rep, err)
	}

	rp := filepath.Join(dir, "r.json")
	r := &campaign.Reproducer{Format: campaign.ReproducerFormat, Finding: campaign.Finding{Kind: "close-code"},
		Episodes: []campaign.Episode{{Kind: "x", MayAuth: true, Steps: []campaign.Step{
			{Op: campaign.OpText, Data: []byte(`{"v":1,"type":"hello","payload":{"protocol_version":1,"device_id":"{{device_id}}","credential":"{{credential}}","device_info":{"model":"m","os":"o","app_version":"1"}}}`)},
			{Op: campaign.OpText, Data: []byte(`{"v":1,"type":"run.cancel","payload":{"run_id":"run_x"}}`)},
		}}}}
	if err := r.Save(rp); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run([]string{"fuzz", "--replay", rp}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "does not reproduce") {
		t.Fatalf("replay: exit %d\n%s", code, stdout.String())
	}
	if code := run([]string{"fuzz", "--conns", "x"}, nil, &stdout, &stderr); code != 2 {
		t.Fatalf("bad flag: exit %d, want 2", code)
	}
}
