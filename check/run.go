package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"

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
	cfg.withDefaults()
	code, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(cfg.Stderr, "lmp-check: %v\n", err)
	}
	return code
}

// run is one run in four steps: validate the configuration, acquire the
// target, run the specs against it, report.
func run(ctx context.Context, cfg Config) (int, error) {
	p, err := validate(cfg)
	if errors.Is(err, errNothingToRerun) {
		return nothingToRerun(cfg.Stdout, "lmp-check", cfg.RerunFailed), nil
	}
	if err != nil {
		return ExitUsage, err
	}
	t, release, err := acquire(ctx, p)
	if err != nil {
		return ExitUsage, err
	}
	defer release()
	if err := conformance.Declare(t); err != nil {
		return ExitUsage, usagef("%v", err)
	}
	budget, limit, why, err := budgetOf(p.cfg, t)
	if err != nil {
		return ExitUsage, err
	}
	fmt.Fprintf(p.cfg.Stdout, "lmp-check: run budget %s", budget)
	if limit < budget.Total() {
		fmt.Fprintf(p.cfg.Stdout, "; --run-timeout caps it at %v", limit)
	}
	fmt.Fprintln(p.cfg.Stdout)
	started := time.Now()
	t.CutAt(started.Add(limit), why)
	report := runSuites(p.cfg, limit)
	if report.PreRunStats.SpecsThatWillRun == 0 {
		// Known only once Ginkgo has walked the tree: a preview first would
		// cost the run its reporting nodes.
		return ExitUsage, noSpec(SubjectServer, p.cfg.ReportConfig)
	}
	return reportRun(ctx, p, t, report, started)
}

// reportRun writes the summary and the report files of a finished run, and
// returns its exit code.
func reportRun(ctx context.Context, p *plan, t *conformance.Target, report types.Report, started time.Time) (int, error) {
	cfg := p.cfg
	results := Results(report, cfg.Strict, p.reports.exp)
	meta := Meta{Target: t.WSURL, Subject: SubjectServer, Profile: t.DescribeProfile(),
		Started: started.UTC().Format(time.RFC3339), Duration: time.Since(started).Seconds()}
	switch {
	case cfg.URL != "" && cfg.KeepDevices:
		meta.Devices = "the run's devices were left paired (--keep-devices)"
	case cfg.URL != "":
		meta.Devices = cleanUp(ctx, t)
	}
	return p.reports.report(meta, results, Summarize(results))
}

// runSuites runs the Ginkgo suites in this process and returns the report.
// The specs stop at limit (conformance.SetRunDeadline); Ginkgo's own
// suite timeout lies beyond it, room for the spec running at the limit
// to end.
func runSuites(cfg Config, limit time.Duration) types.Report {
	sc := types.NewDefaultSuiteConfig()
	sc.LabelFilter = cfg.LabelFilter
	sc.FocusStrings = cfg.Focus
	sc.SkipStrings = cfg.Skip
	sc.Timeout = limit + 10*time.Minute
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
func selectionString(cfg ReportConfig) string {
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
