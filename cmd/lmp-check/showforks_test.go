package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/reference"
)

// TestForkChoiceIsNeutral runs the Hermes-side turn specs, --strict,
// against a server that shows each fork of a chat's session as a run of
// its own (lmp-server --show-forks), the other answer to note 22's open
// choice than the reference server's default: every spec passes either
// server, and the default is checked by every other run of the suites.
func TestForkChoiceIsNeutral(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary against an in-process server")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	inst, err := reference.Start(context.Background(), reference.Options{
		Addr: "127.0.0.1:0", DataDir: filepath.Join(dir, "data"), Profile: reference.ShortProfile, ShowForks: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = inst.Close(ctx)
	})
	report := filepath.Join(dir, "report.json")
	code, stdout, stderr := runBinary(t, bin, "--url", inst.WSURL, "--pair-url", inst.PairURL, "--driver-url", inst.DriverURL,
		"--strict", "--label-filter", "section:turns && !timer", "--json-report", report)
	selected, failed := ran(readReport(t, report))
	if len(selected) == 0 {
		t.Fatalf("no spec of the turns section ran\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if code != check.ExitConformant || len(failed) > 0 {
		t.Fatalf("exit code %d; against a server that shows forks as runs, failed: %q\nstdout:\n%s\nstderr:\n%s", code, failed, stdout, stderr)
	}
}
