package selftest

import (
	"context"
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
	"github.com/loomi-lmp/lmpkit/internal/mutant"
	"github.com/loomi-lmp/lmpkit/internal/variant"
	"github.com/loomi-lmp/lmpkit/reference"
)

// minimalExpectation is what the run behind the minimal variant must give
// for m, derived from the catalogue (issue 22, item 4):
//
//   - Caught for every mutant lmp-check catches by default through the
//     wire alone: no needs_driver (the variant serves no driver API), no
//     needs_host (the variant listens on loopback), no proxy_hides. A MUST
//     spec that caught it only through a field lmp-v1.md does not define
//     then fails to, and shows;
//   - Missed for a mutant that breaks only our own fields (own_fields):
//     the variant strips them, so even under --strict no spec of its rules
//     may fail, or a spec read a field that is not there as a zero value;
//   - "" when no such run is made.
func minimalExpectation(m mutant.Mutant) string {
	switch {
	case m.NeedsDriver != "", m.NeedsHost != "", m.Survives != "", m.ProxyHides != "":
		return ""
	case m.OwnFields != "":
		return Missed
	case m.StrictOnly != "":
		return ""
	}
	return Caught
}

// minimalChoices are the variant's choices behind which mutants run: only
// §4's fields in every payload, every open point passed through from the
// mutated server, so that only what the spec defines reaches lmp-check.
func minimalChoices() variant.Choices { return variant.Choices{Minimal: true} }

// minimalVerdict judges m's run behind the minimal variant: for an
// own_fields mutant, only whether a spec of its rules failed (the
// variant's acknowledgement contradicts note 5 whatever the mutant, so
// --strict fails that note's SHOULD specs).
func minimalVerdict(m mutant.Mutant, o outcome, err error) string {
	if err != nil {
		return Broken
	}
	r := judge(m, o)
	if minimalExpectation(m) == Missed && len(r.caughtBy) == 0 {
		// Hidden, provided that a spec of its rules ran and passed: a run
		// that skipped them all would hide anything.
		for _, s := range o.report.Specs {
			if s.Verdict == string(check.Pass) && slices.ContainsFunc(s.Rules, func(id string) bool { return slices.Contains(m.Rules, id) }) {
				return Missed
			}
		}
		return Broken
	}
	return r.verdict
}

// runMinimal checks the mutated lmp-server behind the minimal variant: it
// starts server (a mutated lmp-server binary) as a process, driven by
// cmd/lmp-check's testdata/serverctl.sh as in TestNeutrality, serves the
// minimal variant in front of it in this process, numbering passed
// through, and runs checkBin (the pristine lmp-check) against the variant
// as against any server without a driver: --triggers mock, the target
// commands, the server's log and args. dir is the run's scratch directory.
func runMinimal(checkBin, server, dir string, args ...string) (outcome, error) {
	addr, err := freeLoopback()
	if err != nil {
		return outcome{}, err
	}
	p := reference.ShortProfile
	up := processCtl{bin: server, addr: addr, dir: filepath.Join(dir, "upstream"),
		flags: fmt.Sprintf("--ping-interval %v --pong-timeout %v --auth-timeout %v --approval-timeout %v",
			p.PingInterval, p.PongTimeout, p.AuthTimeout, p.ApprovalTimeout)}
	if err := os.MkdirAll(up.dir, 0o700); err != nil {
		return outcome{}, err
	}
	ctl := func(action string) error {
		if out, err := exec.Command("sh", "-c", up.command(action)).CombinedOutput(); err != nil {
			return fmt.Errorf("serverctl.sh %s: %v\n%s", action, err, out)
		}
		return nil
	}
	if err := ctl("start"); err != nil {
		return outcome{}, err
	}
	defer func() { _ = ctl("stop") }()
	if err := awaitHealth("http://"+up.addr, 30*time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(up.dir, "server.log"))
		return outcome{}, fmt.Errorf("the mutated lmp-server: %v\n%s", err, tail(string(log)))
	}
	proxy, err := variant.Start(variant.Options{Upstream: "http://" + up.addr, StateFile: filepath.Join(dir, "variant.json"),
		Choices: minimalChoices(), KeepNumbering: true})
	if err != nil {
		return outcome{}, err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = proxy.Close(ctx)
	}()
	argv := append([]string{"--url", proxy.WSURL(), "--pair-url", proxy.PairURL(),
		"--ping-interval", p.PingInterval.String(), "--pong-timeout", p.PongTimeout.String(),
		"--auth-timeout", p.AuthTimeout.String(), "--approval-timeout", p.ApprovalTimeout.String(),
		"--server-log", filepath.Join(up.dir, "server.log"), "--triggers", "mock",
		"--list-cmd", up.command("devices"), "--revoke-cmd", up.command("revoke {device_id}"),
		"--restart-cmd", up.command("restart"), "--crash-cmd", up.command("crash"),
		// A throwaway server: revoking each device through a process of
		// its own would take longer than the run.
		"--keep-devices"}, args...)
	return execCheck(checkBin, filepath.Join(dir, "report.json"), nil, argv...)
}

// freeLoopback returns a loopback address whose port was free a moment
// ago; the server keeps it across its restarts.
func freeLoopback() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// awaitHealth polls base's GET /health until it answers, at most within.
func awaitHealth(base string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("never answered GET /health: " + err.Error())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkMinimalControl judges the control run: the pristine lmp-server
// behind the minimal variant, checked as the mutants are there, must pass
// every spec, so that a mutant caught there was caught by its own fault
// and not by the variant's.
func checkMinimalControl(t *testing.T, res result) {
	if res.err != nil {
		t.Fatalf("the pristine server behind the minimal variant: %v\n%s", res.err, tail(res.o.output))
	}
	pass := 0
	for _, s := range res.o.report.Specs {
		switch check.Verdict(s.Verdict) {
		case check.Pass:
			pass++
		case check.Fail, check.UnexpectedPass:
			t.Errorf("the pristine server behind the minimal variant fails a %s spec: [%s] %s: %s", s.Level, strings.Join(s.Rules, ","), s.Text, s.Reason)
		}
	}
	if res.o.exit != check.ExitConformant || pass == 0 {
		t.Errorf("lmp-check exited %d against the pristine server behind the minimal variant, %d specs passing, want %d\n%s", res.o.exit, pass, check.ExitConformant, tail(res.o.output))
	}
	t.Logf("the pristine server behind the minimal variant: %d specs pass in %.1fs", pass, res.o.duration.Seconds())
}
