package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/suites/conformance"

	// The suites register their specs with Ginkgo.
	_ "github.com/loomi-lmp/lmpkit/suites"
)

// SuiteName is the Ginkgo suite's description.
const SuiteName = "LMP v1 conformance"

// lastReport receives the suite report after RunSpecs.
var lastReport types.Report

var _ = ginkgo.ReportAfterSuite("lmp-check", func(r ginkgo.Report) { lastReport = r })

// ginkgoT is the GinkgoTestingT of a run outside go test.
type ginkgoT struct{ failed bool }

func (t *ginkgoT) Fail() { t.failed = true }

// Run performs one lmp-check run and returns its exit code. It may be
// called once per process (Ginkgo runs a suite once).
func Run(ctx context.Context, cfg Config) int {
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	code, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(cfg.Stderr, "lmp-check: %v\n", err)
	}
	return code
}

func run(ctx context.Context, cfg Config) (int, error) {
	var exp *Expectations
	if cfg.Expect != "" {
		e, err := LoadExpectations(cfg.Expect)
		if err != nil {
			return ExitUsage, usagef("--expect: %v", err)
		}
		exp = e
	}
	if cfg.RerunFailed != "" {
		focus, err := RerunFocus(cfg.RerunFailed)
		if err != nil {
			return ExitUsage, err
		}
		if len(focus) == 0 {
			fmt.Fprintf(cfg.Stdout, "lmp-check: no spec failed in %s: nothing to rerun\n", cfg.RerunFailed)
			return ExitConformant, nil
		}
		cfg.Focus = append(cfg.Focus, focus...)
	}
	if err := checkSelection(cfg.LabelFilter, cfg.Focus, cfg.Skip); err != nil {
		return ExitUsage, err
	}
	hc, err := cfg.httpClient()
	if err != nil {
		return ExitUsage, err
	}
	t := conformance.Target{
		WSURL: cfg.URL, PairURL: cfg.PairURL, TokenCmd: cfg.TokenCmd, DriverURL: cfg.DriverURL,
		HTTPClient: hc, Strict: cfg.Strict, ServerLog: cfg.ServerLog,
		ListCmd: cfg.ListCmd, RevokeCmd: cfg.RevokeCmd, RestartCmd: cfg.RestartCmd, CrashCmd: cfg.CrashCmd,
	}
	if cfg.Triggers != "" {
		if t.Triggers, err = conformance.LoadTriggers(cfg.Triggers); err != nil {
			return ExitUsage, usagef("--triggers: %v", err)
		}
	}
	if cfg.Model != "" {
		stop, err := serveModel(cfg)
		if err != nil {
			return ExitUsage, usagef("--model: %v", err)
		}
		defer stop()
	}
	if cfg.NoDriver && (cfg.URL != "" || cfg.DriverURL != "") {
		return ExitUsage, usagef("--no-driver checks the in-process server without its driver: it excludes --url and --driver-url (against a server of your own, leave out --driver-url)")
	}
	if cfg.URL != "" && cfg.Listen != "" {
		return ExitUsage, usagef("--listen sets where the in-process server listens: it excludes --url")
	}
	if cfg.URL == "" {
		if cfg.ServerLog != "" {
			return ExitUsage, usagef("--server-log needs --url: the in-process server's own log is read without it")
		}
		for flag, v := range map[string]string{"--restart-cmd": cfg.RestartCmd, "--crash-cmd": cfg.CrashCmd} {
			if v != "" {
				return ExitUsage, usagef("%s needs --url: it acts on the server under test, and the in-process server is not a process of its own", flag)
			}
		}
		// The in-process server has both sources: the event specs go
		// through the triggers, as against a server that is not ours, the
		// specs that observe the Hermes side through the driver.
		if t.Triggers == nil {
			t.Triggers = conformance.MockTriggers()
		}
		t.PreferTriggers = true
		inst, prof, err := startInProcess(ctx, cfg)
		if err != nil {
			return ExitUsage, err
		}
		defer inst.Close()
		t.WSURL, t.PairURL, t.DriverURL, t.ServerLog = inst.WSURL, inst.PairURL, inst.DriverURL, inst.LogPath
		// It restarts cleanly in place; a kill -9 needs a process of its own.
		t.RestartFunc = inst.Restart
		// Its devices are listed as `lmp-server devices --json` lists them,
		// unless --list-cmd says otherwise.
		t.ListFunc = inst.ListDevices
		if cfg.NoDriver {
			// Hidden from the suites: they see the server as one without
			// a driver, and learn its timings as such a server's user
			// gives them, through the timing flags.
			t.DriverURL = ""
			inst.timingFlags(&cfg)
		}
		fmt.Fprintf(cfg.Stdout, "lmp-check: no --url given: checking an in-process lmp-server at %s with the %s timing profile", t.WSURL, prof)
		if prof == "short" {
			fmt.Fprint(cfg.Stdout, " (use --profile spec for the spec's timings)")
		}
		fmt.Fprintln(cfg.Stdout)
	} else {
		if err := checkURL(cfg.URL); err != nil {
			return ExitUsage, err
		}
		if cfg.ServerLog != "" {
			if err := checkServerLog(cfg.ServerLog); err != nil {
				return ExitUsage, err
			}
		}
		if t.PairURL == "" && t.TokenCmd == "" {
			if !client.IsLoopbackURL(cfg.URL) {
				return ExitUsage, usagef("--url %s is not loopback: give --pair-url or --token-cmd", cfg.URL)
			}
			if t.PairURL, err = client.PairURLFor(cfg.URL); err != nil {
				return ExitUsage, usagef("%v", err)
			}
		}
	}
	if t.Profile, err = buildProfile(ctx, cfg, t); err != nil {
		return ExitUsage, err
	}
	if err := preflight(ctx, t); err != nil {
		return ExitUsage, err
	}
	if err := conformance.Configure(t); err != nil {
		return ExitUsage, usagef("%v", err)
	}

	started := time.Now()
	report := runSuites(cfg)
	if report.PreRunStats.SpecsThatWillRun == 0 {
		// Known only once Ginkgo has walked the tree: a preview first would
		// cost the run its reporting nodes.
		return ExitUsage, usagef("the selection (%s) matches no spec: see lmp-check list", selectionString(cfg))
	}
	results := Results(report, cfg.Strict, exp)
	sum := Summarize(results)
	meta := Meta{Target: t.WSURL, Profile: t.Profile.String(), Strict: cfg.Strict, Color: cfg.Color,
		Started: started.UTC().Format(time.RFC3339), Duration: time.Since(started).Seconds()}
	if cfg.URL != "" {
		meta.Devices = cleanUp(ctx, conformance.Current())
	}
	WriteText(cfg.Stdout, meta, results, sum, cfg.Verbose)
	if err := writeFile(cfg.JUnitReport, func(w io.Writer) error { return WriteJUnit(w, meta, results) }); err != nil {
		return ExitUsage, fmt.Errorf("--junit-report: %w", err)
	}
	if err := writeFile(cfg.JSONReport, func(w io.Writer) error { return WriteJSON(w, meta, results, sum) }); err != nil {
		return ExitUsage, fmt.Errorf("--json-report: %w", err)
	}
	if err := writeFile(cfg.HTMLReport, func(w io.Writer) error { return WriteHTML(w, meta, results, sum) }); err != nil {
		return ExitUsage, fmt.Errorf("--html-report: %w", err)
	}
	return sum.ExitCode(), nil
}

// buildProfile takes the timing profile from the driver API when there is
// one, then applies the timing flags.
func buildProfile(ctx context.Context, cfg Config, t conformance.Target) (conformance.Profile, error) {
	p := conformance.SpecProfile()
	if t.DriverURL != "" {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		dp, err := driver.New(t.DriverURL, t.HTTPClient).Profile(ctx)
		if err != nil {
			return p, fmt.Errorf("%w: driver API %s: %v", errUnreachable, t.DriverURL, err)
		}
		p = conformance.ProfileFromDriver(dp)
	}
	set := func(dst *time.Duration, v time.Duration) {
		if v > 0 {
			*dst = v
			p.Source = "flags"
		}
	}
	set(&p.PingInterval, cfg.PingInterval)
	set(&p.PongTimeout, cfg.PongTimeout)
	set(&p.AuthTimeout, cfg.AuthTimeout)
	set(&p.PairTTL, cfg.PairTTL)
	set(&p.ApprovalTimeout, cfg.ApprovalTimeout)
	setN := func(dst *int, v int) {
		if v > 0 {
			*dst = v
			p.Source = "flags"
		}
	}
	setN(&p.ReplayWindow, cfg.ReplayWindow)
	setN(&p.RequestIDWindow, cfg.RequestWindow)
	return p, nil
}

// preflight checks that the target answers HTTP at /health and accepts a
// WebSocket, before any spec runs: otherwise the run ends with exit code 2,
// not with a page of failures.
func preflight(ctx context.Context, t conformance.Target) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	health, err := (&t).HealthURL()
	if err != nil {
		return usagef("%v", err)
	}
	req, err := newGet(ctx, health)
	if err != nil {
		return usagef("%v", err)
	}
	resp, err := t.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w: GET %s: %v", errUnreachable, health, err)
	}
	resp.Body.Close()
	c, err := client.Dial(ctx, t.WSURL, &client.Options{HTTPClient: t.HTTPClient})
	if err != nil {
		return fmt.Errorf("%w: WebSocket %s: %v", errUnreachable, t.WSURL, err)
	}
	_ = c.CloseNow()
	return nil
}

// runSuites runs the Ginkgo suites in this process and returns the report.
func runSuites(cfg Config) types.Report {
	sc := types.NewDefaultSuiteConfig()
	sc.LabelFilter = cfg.LabelFilter
	sc.FocusStrings = cfg.Focus
	sc.SkipStrings = cfg.Skip
	sc.Timeout = 30 * time.Minute
	rc := types.NewDefaultReporterConfig()
	rc.NoColor = true
	rc.Succinct = !cfg.Verbose
	rc.Verbose = cfg.Verbose
	// Ginkgo's own progress output goes to stderr, and only when asked
	// for: the summary on stdout is lmp-check's.
	if cfg.Verbose {
		formatter.ColorableStdOut = cfg.Stderr
	} else {
		formatter.ColorableStdOut = io.Discard
	}
	if cfg.Progress != nil && !cfg.Verbose {
		stop := startProgress(cfg.Progress)
		defer stop()
	}
	ginkgo.RunSpecs(&ginkgoT{}, SuiteName, sc, rc)
	return lastReport
}

func writeFile(path string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ExitCodeOf maps an error from a run's set-up to its exit code.
func ExitCodeOf(err error) int {
	var ue *UsageError
	if err == nil {
		return ExitConformant
	}
	if errors.As(err, &ue) || errors.Is(err, errUnreachable) {
		return ExitUsage
	}
	return ExitNotConformant
}

// cleanUp revokes the devices the run paired and says what became of
// them: a run must not leave its devices in a developer's server.
func cleanUp(ctx context.Context, t *conformance.Target) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c := conformance.RevokePaired(ctx, t)
	switch {
	case c.Paired == 0:
		return "the run paired none"
	case c.Left == 0:
		return fmt.Sprintf("the run paired %d and revoked them all", c.Paired)
	}
	return fmt.Sprintf("the run paired %d, revoked %d and had to leave %d: %v", c.Paired, c.Revoked, c.Left, c.Err)
}

// selectionString describes the selection flags for an error message.
func selectionString(cfg Config) string {
	var parts []string
	if cfg.LabelFilter != "" {
		parts = append(parts, fmt.Sprintf("--label-filter %q", cfg.LabelFilter))
	}
	for _, f := range cfg.Focus {
		parts = append(parts, fmt.Sprintf("--focus %q", f))
	}
	for _, f := range cfg.Skip {
		parts = append(parts, fmt.Sprintf("--skip %q", f))
	}
	return strings.Join(parts, " ")
}
