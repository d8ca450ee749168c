package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/variant"
	"github.com/loomi-lmp/lmpkit/reference"
)

// defaultVariantSeed is the seed of the random combinations in the test
// command: a fixed one, so that a CI run judges the change, not the draw.
// -variant.seed 0 draws a fresh seed from the clock to explore further.
const defaultVariantSeed = 20261202

// variantSeed seeds the random combinations of the variant's choices. The
// test prints it: -variant.seed N repeats a run.
var variantSeed = flag.Uint64("variant.seed", defaultVariantSeed, "seed of TestNeutrality's random combinations of the variant's choices (0: a fresh one from the clock)")

// neutralRunCap bounds one lmp-check run against the variant: the
// combinations run side by side with the mutants on a shared machine.
const neutralRunCap = 8 * time.Minute

// randomCombinations is how many seeded random combinations TestNeutrality
// runs besides the all-alternative and the minimal one.
const randomCombinations = 2

// noteRef finds the notes a spec's text names: "(note 2)", "(notes 5, 21)".
var noteRef = regexp.MustCompile(`notes? (\d+(?:(?:, | and )\d+)*)`)

// notesOf returns the notes.md numbers text names.
func notesOf(text string) []int {
	var out []int
	for _, m := range noteRef.FindAllStringSubmatch(text, -1) {
		for _, f := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' || r == 'a' || r == 'n' || r == 'd' }) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// TestNeutrality runs lmp-check, with --strict, against second legitimate
// implementations: internal/variant (lmp-variant, a process of its own) in
// front of an lmp-server process, once with every open point of notes.md
// answered the variant's way, once as the minimal server (only what
// lmp-v1.md defines in every payload), and in a few random combinations of
// its switches drawn from a printed seed. The variant serves no driver and
// no admin API: Hermes-side events come from --triggers only, devices are
// revoked with --revoke-cmd, and --restart-cmd and --crash-cmd restart and
// kill -9 the variant. In every combination every MUST spec passes, and
// the only failures are SHOULD specs of the notes the combination
// contradicts (variant.Choices.Contradicted), derived from the switches.
func TestNeutrality(t *testing.T) {
	if testing.Short() {
		t.Skip("the neutrality self-test runs lmp-check against a second implementation")
	}
	dir := t.TempDir()
	checkBin, err := buildCheck(dir)
	if err != nil {
		t.Fatal(err)
	}
	bins := variantBins{check: checkBin, server: buildBinary(t, dir, "cmd/lmp-server", false),
		variant: buildBinary(t, dir, "internal/variant/cmd/lmp-variant", raceEnabled)}
	seed := *variantSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("random combinations of the variant's choices from seed %d (repeat with -variant.seed %d)", seed, seed)
	combos := []struct {
		name    string
		choices variant.Choices
	}{
		{"all-alternatives", variant.AllAlternatives()},
		{"minimal", variant.MinimalChoices()},
	}
	for i := range randomCombinations {
		c := variant.RandomChoices(seed + uint64(i))
		combos = append(combos, struct {
			name    string
			choices variant.Choices
		}{fmt.Sprintf("seed-%d", seed+uint64(i)), c})
	}
	// Two runs at a time: more on two cores make the timer specs judge
	// the machine's load rather than the variant.
	slots := make(chan struct{}, 2)
	for _, c := range combos {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			t.Logf("choices %s; contradicted notes %v", c.choices, c.choices.Contradicted())
			neutralRun(t, bins, c.choices)
		})
	}
}

type variantBins struct{ check, server, variant string }

// neutralRun runs lmp-check --strict against the variant with choices and
// judges the report.
func neutralRun(t *testing.T, bins variantBins, choices variant.Choices) {
	dir := t.TempDir()
	// lmp-check is cut at neutralRunCap and still writes its report; the
	// process gets a minute more.
	ctx, cancel := context.WithTimeout(context.Background(), neutralRunCap+time.Minute)
	defer cancel()

	p := reference.ShortProfile
	upstream := startProcess(ctx, t, processCtl{bin: bins.server, addr: freeLoopbackAddr(t), dir: filepath.Join(dir, "upstream"),
		flags: fmt.Sprintf("--ping-interval %v --pong-timeout %v --auth-timeout %v", p.PingInterval, p.PongTimeout, p.AuthTimeout)})
	// The variant is the server under test: its own process, restarted and
	// killed by the target commands, while the lmp-server behind it runs on.
	proxy := startProcess(ctx, t, processCtl{bin: bins.variant, addr: freeLoopbackAddr(t), dir: filepath.Join(dir, "variant"),
		flags: "--upstream http://" + upstream.addr + " --choices " + choices.String()})

	reportPath := filepath.Join(dir, "report.json")
	// The timing profile's spec is left out: under --strict it asks for
	// the spec's own timings, which the short profile leaves on purpose.
	argv := []string{"run", "--strict", "--label-filter", "!section:timing",
		"--url", "ws://" + proxy.addr + "/ws", "--pair-url", "http://" + proxy.addr + "/internal/pair/new",
		"--ping-interval", p.PingInterval.String(), "--pong-timeout", p.PongTimeout.String(), "--auth-timeout", p.AuthTimeout.String(),
		"--server-log", filepath.Join(upstream.dir, "server.log"), "--json-report", reportPath,
		// Hermes-side events come from the built-in triggers only; devices
		// are revoked with the upstream's own command.
		"--triggers", "mock", "--revoke-cmd", upstream.command("revoke {device_id}"),
		"--restart-cmd", proxy.command("restart"), "--crash-cmd", proxy.command("crash"),
		// The servers are thrown away: revoking the run's 150 devices one
		// process at a time would take minutes.
		"--keep-devices", "--run-timeout", neutralRunCap.String(),
	}
	cmd := exec.CommandContext(ctx, bins.check, argv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
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

	contradicted := choices.Contradicted()
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
			failed = append(failed, id)
			switch {
			case s.Level == "MUST":
				t.Errorf("the variant (%s) fails a MUST spec: %s\n    %s", choices, id, s.Reason)
			case s.Level != "SHOULD" || !slices.ContainsFunc(notesOf(s.Text), func(n int) bool { return slices.Contains(contradicted, n) }):
				t.Errorf("the variant (%s) fails a %s spec of no note it contradicts (%v): %s\n    %s", choices, s.Level, contradicted, id, s.Reason)
			}
		case check.Observed:
			observed = append(observed, id+": "+firstLine(s.Reason))
		case check.Skipped:
			skipped = append(skipped, id+": "+s.Reason)
		}
	}
	if len(failed) > 0 && exit != check.ExitNotConformant {
		t.Errorf("lmp-check --strict exited %d with failures, want %d", exit, check.ExitNotConformant)
	}
	if choices.On(21) && len(observed) == 0 {
		t.Error("no INFO spec observed the variant's own codes and names")
	}
	slices.Sort(failed)
	t.Logf("the variant (%s) under --strict: %d specs, %d SHOULD failures:\n  %s\n%d INFO observations:\n  %s\n%d skipped:\n  %s",
		choices, len(rep.Specs), len(failed), strings.Join(failed, "\n  "), len(observed), strings.Join(observed, "\n  "), len(skipped), strings.Join(skipped, "\n  "))
	if len(restarts) == 0 {
		t.Error("no restart or crash spec passed against the variant")
	}
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
