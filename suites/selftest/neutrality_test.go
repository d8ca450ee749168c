package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/variant"
)

// variantStrictFailures are the specs another legitimate implementation
// (internal/variant) fails under --strict: each tests a preferred answer of
// notes.md that the variant answers otherwise. Nothing else may fail.
var variantStrictFailures = []string{
	// note 2: every frame of the variant takes a seq of its own.
	"[E-2] connection-scoped frames carry the device's current seq without advancing it (note 2)",
	// note 11: the variant's error codes are its own.
	"[V-2] an unsupported protocol_version gets a fatal unsupported_version naming the supported versions (note 11)",
}

// TestNeutrality runs lmp-check, with --strict, against a second legitimate
// implementation: an lmp-server process behind internal/variant, which
// numbers every frame, sends run.failed then run.completed, calls its
// acknowledgement "reply", has its own error codes, close codes and task
// statuses, serves no driver and no admin API (devices are revoked with
// --revoke-cmd), so that Hermes-side events come from --triggers only. Every
// MUST spec passes; the only failures are variantStrictFailures, SHOULD
// specs of notes.md's preferred answers, and INFO specs show our own
// choices as observations.
func TestNeutrality(t *testing.T) {
	if testing.Short() {
		t.Skip("the neutrality self-test runs lmp-check against a second implementation")
	}
	dir := t.TempDir()
	checkBin, err := buildCheck(nil, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	serverBin := filepath.Join(dir, "lmp-server")
	if out, err := exec.Command("go", "build", "-o", serverBin, "github.com/loomi-lmp/lmpkit/cmd/lmp-server").CombinedOutput(); err != nil {
		t.Fatalf("go build lmp-server: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()

	upstream, logPath := startServerProcess(ctx, t, serverBin, dir)
	proxy, err := variant.Start(variant.Options{Upstream: "http://" + upstream, StateFile: filepath.Join(dir, "variant.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		if err := proxy.Close(cctx); err != nil {
			t.Logf("close the variant: %v", err)
		}
	}()

	reportPath := filepath.Join(dir, "report.json")
	p := check.ShortProfile
	// The timing profile's spec is left out: under --strict it asks for
	// the spec's own timings, which the short profile leaves on purpose.
	argv := []string{"run", "--strict", "--label-filter", "!section:timing",
		"--url", proxy.WSURL(), "--pair-url", proxy.PairURL(),
		"--ping-interval", p.PingInterval.String(), "--pong-timeout", p.PongTimeout.String(), "--auth-timeout", p.AuthTimeout.String(),
		"--server-log", logPath, "--json-report", reportPath,
	}
	argv = append(argv, variantTargetFlags(serverBin, upstream)...)
	cmd := exec.CommandContext(ctx, checkBin, argv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("run lmp-check: %v", err)
	}
	raw, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatalf("lmp-check exited %d without a JSON report: %v\n%s", exit, err, tail(out.String()))
	}
	var rep check.JSONReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}

	var failed, observed, skipped []string
	for _, s := range rep.Specs {
		id := "[" + strings.Join(s.Rules, ",") + "] " + s.Text
		switch check.Verdict(s.Verdict) {
		case check.Fail, check.UnexpectedPass:
			if s.Level == "MUST" {
				t.Errorf("the variant fails a MUST spec: %s\n    %s", id, s.Reason)
			}
			failed = append(failed, id)
		case check.Observed:
			observed = append(observed, id+": "+firstLine(s.Reason))
		case check.Skipped:
			skipped = append(skipped, id+": "+s.Reason)
		}
	}
	slices.Sort(failed)
	want := slices.Sorted(slices.Values(variantStrictFailures))
	if !slices.Equal(failed, want) {
		t.Errorf("under --strict the variant fails\n  %s\nwant exactly\n  %s", strings.Join(failed, "\n  "), strings.Join(want, "\n  "))
	}
	if exit != check.ExitNotConformant {
		t.Errorf("lmp-check --strict exited %d, want %d (the SHOULD failures above)", exit, check.ExitNotConformant)
	}
	if len(observed) == 0 {
		t.Error("no INFO spec observed the variant's own codes and names")
	}
	t.Logf("the variant under --strict: %d specs, %d SHOULD failures, %d INFO observations:\n  %s\n%d skipped:\n  %s",
		len(rep.Specs), len(failed), len(observed), strings.Join(observed, "\n  "), len(skipped), strings.Join(skipped, "\n  "))
	if t.Failed() {
		t.Logf("lmp-check output:\n%s", tail(out.String()))
	}
}

// startServerProcess starts `lmp-server serve` with the short profile on a
// free loopback port, its log in a file, and waits for /health. It
// returns the server's address and the log's path; the process is killed
// when the test ends.
func startServerProcess(ctx context.Context, t *testing.T, bin, dir string) (addr, logPath string) {
	t.Helper()
	addr = freeLoopbackAddr(t)
	logPath = filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	p := check.ShortProfile
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data", filepath.Join(dir, "data"), "--no-qr",
		"--ping-interval", p.PingInterval.String(), "--pong-timeout", p.PongTimeout.String(), "--auth-timeout", p.AuthTimeout.String())
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logFile.Close()
	})
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			return addr, logPath
		}
		select {
		case <-ctx.Done():
			t.Fatalf("lmp-server on %s never answered /health", addr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// freeLoopbackAddr returns a loopback address with a port that was free a
// moment ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// variantTargetFlags are the lmp-check flags that reach what the variant
// offers besides the wire: the built-in triggers for Hermes-side events,
// and the upstream's own revoke command.
func variantTargetFlags(serverBin, upstream string) []string {
	return []string{"--triggers", "mock", "--revoke-cmd", fmt.Sprintf("%s revoke --addr %s {device_id}", serverBin, upstream)}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
