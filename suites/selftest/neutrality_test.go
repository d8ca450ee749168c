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
	"github.com/loomi-lmp/lmpkit/reference"
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
// implementation: internal/variant (lmp-variant, a process of its own) in
// front of an lmp-server process. It numbers every frame, persists its
// numbering across restarts, sends run.failed then run.completed, calls its
// acknowledgements "reply" and "approval.resolve.result", has its own error codes, close codes and task
// statuses, and serves no driver and no admin API: Hermes-side events come
// from --triggers only, devices are revoked with --revoke-cmd, and
// --restart-cmd and --crash-cmd restart and kill -9 the variant. Every
// MUST spec passes; the only failures are variantStrictFailures, SHOULD
// specs of notes.md's preferred answers, and INFO specs show our own
// choices as observations.
func TestNeutrality(t *testing.T) {
	if testing.Short() {
		t.Skip("the neutrality self-test runs lmp-check against a second implementation")
	}
	dir := t.TempDir()
	checkBin, err := buildCheck(dir)
	if err != nil {
		t.Fatal(err)
	}
	serverBin := buildBinary(t, dir, "cmd/lmp-server", false)
	variantBin := buildBinary(t, dir, "internal/variant/cmd/lmp-variant", raceEnabled)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()

	p := reference.ShortProfile
	upstream := startProcess(ctx, t, processCtl{bin: serverBin, addr: freeLoopbackAddr(t), dir: filepath.Join(dir, "upstream"),
		flags: fmt.Sprintf("--ping-interval %v --pong-timeout %v --auth-timeout %v", p.PingInterval, p.PongTimeout, p.AuthTimeout)})
	// The variant is the server under test: its own process, restarted and
	// killed by the target commands, while the lmp-server behind it runs on.
	variant := startProcess(ctx, t, processCtl{bin: variantBin, addr: freeLoopbackAddr(t), dir: filepath.Join(dir, "variant"),
		flags: "--upstream http://" + upstream.addr})

	reportPath := filepath.Join(dir, "report.json")
	// The timing profile's spec is left out: under --strict it asks for
	// the spec's own timings, which the short profile leaves on purpose.
	argv := []string{"run", "--strict", "--label-filter", "!section:timing",
		"--url", "ws://" + variant.addr + "/ws", "--pair-url", "http://" + variant.addr + "/internal/pair/new",
		"--ping-interval", p.PingInterval.String(), "--pong-timeout", p.PongTimeout.String(), "--auth-timeout", p.AuthTimeout.String(),
		"--server-log", filepath.Join(upstream.dir, "server.log"), "--json-report", reportPath,
		// Hermes-side events come from the built-in triggers only; devices
		// are revoked with the upstream's own command.
		"--triggers", "mock", "--revoke-cmd", upstream.command("revoke {device_id}"),
		"--restart-cmd", variant.command("restart"), "--crash-cmd", variant.command("crash"),
	}
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

	var failed, observed, skipped, restarts []string
	for _, s := range rep.Specs {
		id := "[" + strings.Join(s.Rules, ",") + "] " + s.Text
		if strings.HasPrefix(s.Section, "§2 Envelope, ordering, replay / Restarts") && s.Verdict == string(check.Pass) {
			for _, n := range s.Notes {
				restarts = append(restarts, id+": "+n.Name+": "+firstLine(n.Text))
			}
		}
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
	if len(restarts) == 0 {
		t.Error("no restart or crash spec passed against the variant")
	}
	t.Logf("restarts and crashes of the variant:\n  %s", strings.Join(restarts, "\n  "))
	if t.Failed() {
		t.Logf("lmp-check output:\n%s", tail(out.String()))
	}
}

// processCtl is one server process driven by cmd/lmp-check's
// testdata/serverctl.sh, CI.md's worked example of target commands: bin is
// started as `bin serve --addr ADDR --data DIR/data --no-qr FLAGS`, which
// both lmp-server and lmp-variant understand.
type processCtl struct {
	bin, addr, dir, flags string
}

// command is the shell command line running the script for action.
func (c processCtl) command(action string) string {
	script, _ := filepath.Abs(filepath.Join(moduleRoot, "cmd", "lmp-check", "testdata", "serverctl.sh"))
	return fmt.Sprintf("LMP_SERVER=%s LMP_ADDR=%s LMP_DIR=%s LMP_FLAGS=%s %s %s",
		shellQuote(c.bin), c.addr, shellQuote(c.dir), shellQuote(c.flags), shellQuote(script), action)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startProcess starts c's process and waits until it answers /health; it
// is stopped when the test ends.
func startProcess(ctx context.Context, t *testing.T, c processCtl) processCtl {
	t.Helper()
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(action string) {
		if out, err := exec.Command("sh", "-c", c.command(action)).CombinedOutput(); err != nil {
			t.Errorf("serverctl.sh %s: %v\n%s", action, err, out)
		}
	}
	run("start")
	t.Cleanup(func() {
		run("stop")
		// A process built with -race reports races in its log.
		if log, err := os.ReadFile(filepath.Join(c.dir, "server.log")); err == nil && strings.Contains(string(log), "WARNING: DATA RACE") {
			t.Errorf("%s raced:\n%s", filepath.Base(c.bin), log)
		}
	})
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.addr+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			return c
		}
		select {
		case <-ctx.Done():
			log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
			t.Fatalf("%s on %s never answered /health:\n%s", filepath.Base(c.bin), c.addr, log)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// buildBinary builds the module's package pkg into dir.
func buildBinary(t *testing.T, dir, pkg string, race bool) string {
	t.Helper()
	bin := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./"+pkg)...)
	cmd.Dir = moduleRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// freeLoopbackAddr returns a loopback address with a port that was free a
// moment ago; a server keeps it across its restarts.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
