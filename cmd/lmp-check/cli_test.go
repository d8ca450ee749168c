package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/check"
)

func readReport(t *testing.T, path string) check.JSONReport {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep check.JSONReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// ran lists the texts of the specs a run selected, and of those that failed.
func ran(rep check.JSONReport) (selected, failed []string) {
	for _, s := range rep.Specs {
		if s.Verdict == "skipped" && s.Reason == "not selected" {
			continue
		}
		selected = append(selected, s.Text)
		switch s.Verdict {
		case "fail", "unexpected-pass", "non-strict":
			failed = append(failed, s.Text)
		}
	}
	slices.Sort(selected)
	slices.Sort(failed)
	return selected, failed
}

// TestRerunFailed reruns exactly the specs that failed in an earlier
// report, and nothing when none did. Off a terminal the output is the
// summary alone: no progress line, no colour.
func TestRerunFailed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary against in-process servers")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	expect := filepath.Join(dir, "expect.yaml")
	if err := os.WriteFile(expect, []byte("expectations:\n  - rule: T-2\n    reason: pretend /health is broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	first, again := filepath.Join(dir, "first.json"), filepath.Join(dir, "again.json")
	code, stdout, stderr := runBinary(t, bin, "--label-filter", "section:transport", "--expect", expect, "--json-report", first)
	if code != 1 {
		t.Fatalf("first run: exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.ContainsAny(stdout, "\r\x1b") {
		t.Errorf("off a terminal the output has a progress line or colour:\n%q", stdout)
	}
	sel1, failed1 := ran(readReport(t, first))
	if len(failed1) == 0 || len(sel1) <= len(failed1) {
		t.Fatalf("first run selected %d specs, %d failed: not the run this test means", len(sel1), len(failed1))
	}

	code, stdout, stderr = runBinary(t, bin, "--rerun-failed", first, "--expect", expect, "--json-report", again)
	if code != 1 {
		t.Fatalf("rerun: exit %d\n%s%s", code, stdout, stderr)
	}
	sel2, failed2 := ran(readReport(t, again))
	if !slices.Equal(sel2, failed1) || !slices.Equal(failed2, failed1) {
		t.Errorf("rerun selected %q and failed %q; the first run failed %q", sel2, failed2, failed1)
	}

	// A report without failures reruns nothing.
	pass := filepath.Join(dir, "pass.json")
	if code, stdout, stderr = runBinary(t, bin, "--label-filter", "T-2", "--json-report", pass); code != 0 {
		t.Fatalf("passing run: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runBinary(t, bin, "--rerun-failed", pass)
	if code != 0 || !strings.Contains(stdout, "nothing to rerun") {
		t.Errorf("rerun of a passing report: exit %d\n%s", code, stdout)
	}
	// Not a report: a usage error naming the flag.
	if code, _, stderr = runBinary(t, bin, "--rerun-failed", expect); code != 2 || !strings.Contains(stderr, "--rerun-failed") {
		t.Errorf("rerun of a YAML file: exit %d\n%s", code, stderr)
	}
}
