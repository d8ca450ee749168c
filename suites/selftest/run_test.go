package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/mutant"
)

// moduleRoot is the module's root, relative to this package.
const moduleRoot = "../.."

// runTimeout bounds one lmp-check run: a mutated server may make specs
// wait out their frame deadlines, never the whole run's. At the bound
// lmp-check is interrupted, as a user's Ctrl-C would: Ginkgo ends the
// running spec (it waits interruptGrace for it) and lmp-check still writes
// its report, which then shows what failed before the bound.
const (
	runTimeout     = 4 * time.Minute
	interruptGrace = time.Minute
)

// outcome is what one lmp-check run produced.
type outcome struct {
	exit     int
	report   check.JSONReport
	output   string // lmp-check's stdout and stderr, for diagnostics
	duration time.Duration
	// timedOut says that the run was interrupted at runTimeout; report
	// is then what lmp-check wrote after the interrupt, if it did.
	timedOut bool
}

// buildCheck builds the clean lmp-check into dir, with -race when the
// self-test runs under -race, so that the race detector watches the
// real server.
func buildCheck(dir string) (string, error) { return buildWith(nil, dir, raceEnabled, false) }

// buildWith builds lmp-check into dir, with m's overlay when m is not
// nil: its in-process server is then the mutated reference server. Builds
// share the go build cache, so a mutant recompiles only the packages it
// changes and those whose export data changes with them. Mutants are built
// without -race, to keep their builds cheap; the pristine build takes race
// when the self-test runs under -race. withServer builds lmp-server too, in
// the same go build (it shares every compiled package; only its link is
// added), as dir/lmp-server.
func buildWith(m *mutant.Mutant, dir string, race, withServer bool) (string, error) {
	ov := ""
	if m != nil {
		var err error
		if ov, err = m.Overlay(moduleRoot, dir); err != nil {
			return "", err
		}
	}
	return build(ov, dir, race, withServer)
}

// buildOverlay builds lmp-check into dir with the overlay file ov.
func buildOverlay(ov, dir string) (string, error) { return build(ov, dir, false, false) }

func build(ov, dir string, race, withServer bool) (string, error) {
	bin := filepath.Join(dir, "lmp-check")
	// Without the symbol table and DWARF the link takes about half the
	// time; panics still name their functions (from the pcln table),
	// which is all the self-test reads of a crash.
	args := []string{"build", "-o", bin, "-ldflags=-s -w"}
	if race {
		args = append(args, "-race")
	}
	if ov != "" {
		args = append(args, "-overlay", ov)
	}
	pkgs := []string{"github.com/loomi-lmp/lmpkit/cmd/lmp-check"}
	if withServer {
		// With two packages, -o names the directory.
		args[2] = dir + string(filepath.Separator)
		pkgs = append(pkgs, "github.com/loomi-lmp/lmpkit/cmd/lmp-server")
	}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir = moduleRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	return bin, nil
}

// inProcessListen is where the self-test's in-process servers listen:
// every interface, so that the LAN specs (suites/lan.go) reach them at this
// host's network addresses, as a phone on the LAN would. As for lmp-server,
// that takes LOOMI_ALLOW_INSECURE_BIND=true (S-3); the servers live for
// one run, on a port the kernel picks.
const inProcessListen = ":0"

// runCheck runs the lmp-check binary with its in-process server (the
// short timing profile, its log scanned for secrets, listening on every
// interface) and args.
func runCheck(bin string, args ...string) (outcome, error) {
	reportPath := filepath.Join(filepath.Dir(bin), "report.json")
	return execCheck(bin, reportPath, []string{"LOOMI_ALLOW_INSECURE_BIND=true"}, append([]string{"--listen", inProcessListen}, args...)...)
}

// execCheck runs `bin run --json-report reportPath args…` with env added to
// the environment, bounded by runTimeout, and reads its report.
func execCheck(bin, reportPath string, env []string, args ...string) (outcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append([]string{"run", "--json-report", reportPath}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = interruptGrace
	start := time.Now()
	err := cmd.Run()
	o := outcome{output: out.String(), duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		o.exit = ee.ExitCode()
	default:
		return o, fmt.Errorf("run lmp-check: %v", err)
	}
	o.timedOut = ctx.Err() != nil
	err = readReport(reportPath, &o)
	switch {
	case o.timedOut:
		return o, fmt.Errorf("lmp-check did not finish within %v", runTimeout)
	case err != nil:
		return o, err
	}
	return o, nil
}

// readReport reads lmp-check's JSON report into o.report.
func readReport(reportPath string, o *outcome) error {
	raw, err := os.ReadFile(reportPath)
	if err != nil {
		return fmt.Errorf("lmp-check exited %d without a JSON report: %v", o.exit, err)
	}
	if err := json.Unmarshal(raw, &o.report); err != nil {
		return fmt.Errorf("JSON report: %v", err)
	}
	if o.report.Format != check.ReportFormat {
		return fmt.Errorf("JSON report format %q, want %q", o.report.Format, check.ReportFormat)
	}
	return nil
}

// sectionFilter is the Ginkgo label filter selecting a mutant's sections.
func sectionFilter(sections []string) string {
	parts := make([]string, len(sections))
	for i, s := range sections {
		parts[i] = "section:" + s
	}
	return strings.Join(parts, " || ")
}

// ruleFilter is the Ginkgo label filter selecting the specs of a mutant's
// sections that carry one of its rules.
func ruleFilter(sections, rules []string) string {
	return "(" + sectionFilter(sections) + ") && (" + strings.Join(rules, " || ") + ")"
}

// tail keeps the end of lmp-check's output: the summary and the failures.
func tail(s string) string {
	const max = 6000
	if len(s) <= max {
		return s
	}
	return "…" + s[len(s)-max:]
}
