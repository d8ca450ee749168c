package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/fault"
	"github.com/loomi-lmp/lmpkit/reference"
)

// runTimeout bounds one lmp-check run: a faulty server may make specs
// wait out their frame deadlines, never the whole run's.
const runTimeout = 4 * time.Minute

// outcome is what one lmp-check run against one server produced.
type outcome struct {
	exit     int
	report   check.JSONReport
	output   string // lmp-check's stdout and stderr, for diagnostics
	duration time.Duration
}

// runCheck starts a reference server committing faults, runs the lmp-check
// binary against it with args, and returns the outcome. The server runs
// in this process, so that -race watches it.
func runCheck(t *testing.T, bin string, faults fault.Set, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	dir := t.TempDir()
	// Every server logs to a file that lmp-check scans for secrets (S-1).
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close() // after the server's Close below
	inst, err := reference.Start(ctx, reference.Options{
		Addr: "127.0.0.1:0", DataDir: filepath.Join(dir, "data"), Name: "selftest",
		PingInterval: check.ShortProfile.PingInterval, PongTimeout: check.ShortProfile.PongTimeout,
		AuthTimeout: check.ShortProfile.AuthTimeout, ApprovalTimeout: check.ShortProfile.ApprovalTimeout,
		Faults: faults, Logger: slog.New(slog.NewTextHandler(logFile, nil)),
	})
	if err != nil {
		t.Fatalf("start the reference server: %v", err)
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		if err := inst.Close(cctx); err != nil {
			t.Logf("close the reference server: %v", err)
		}
	}()

	reportPath := filepath.Join(dir, "report.json")
	argv := append([]string{"run",
		"--url", inst.WSURL, "--pair-url", inst.PairURL, "--driver-url", inst.DriverURL,
		"--json-report", reportPath, "--server-log", logPath,
	}, args...)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	o := outcome{output: out.String(), duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		o.exit = ee.ExitCode()
	default:
		t.Fatalf("run lmp-check: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("lmp-check did not finish within %v\n%s", runTimeout, tail(o.output))
	}
	raw, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatalf("lmp-check exited %d without a JSON report: %v\n%s", o.exit, err, tail(o.output))
	}
	if err := json.Unmarshal(raw, &o.report); err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	if o.report.Format != check.ReportFormat {
		t.Fatalf("JSON report format %q, want %q", o.report.Format, check.ReportFormat)
	}
	return o
}

// sectionFilter is the Ginkgo label filter selecting a fault's sections.
func sectionFilter(sections []string) string {
	parts := make([]string, len(sections))
	for i, s := range sections {
		parts[i] = "section:" + s
	}
	return strings.Join(parts, " || ")
}

// tail keeps the end of lmp-check's output: the summary and the failures.
func tail(s string) string {
	const max = 6000
	if len(s) <= max {
		return s
	}
	return "…" + s[len(s)-max:]
}

// buildCheck builds the lmp-check binary once into dir.
func buildCheck(dir string) (string, error) {
	bin := filepath.Join(dir, "lmp-check")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/loomi-lmp/lmpkit/cmd/lmp-check")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build lmp-check: %v\n%s", err, out)
	}
	return bin, nil
}
