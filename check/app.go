package check

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/loomi-lmp/lmpkit/judge"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// The subjects of a run (Meta.Subject, the JSON report's subject).
const (
	// SubjectServer is a server run's (lmp-check run).
	SubjectServer = "server"
	// SubjectApp is an app run's (lmp-check app): the reports then judge
	// the client rules (C-1 …) of an app, not a server.
	SubjectApp = "app"
)

// AppConfig is one `lmp-check app` run, as the command line describes it.
type AppConfig struct {
	Judge judge.Config
	// ReportConfig is the selection, the verdicts and the reports, as a
	// server run has them.
	ReportConfig
}

// RunApp judges an app (package judge) and writes the same reports as a
// server run, with the same verdicts and exit codes.
func RunApp(ctx context.Context, cfg AppConfig) int {
	cfg.withDefaults()
	code, err := runApp(ctx, cfg)
	if err != nil {
		fmt.Fprintf(cfg.Stderr, "lmp-check app: %v\n", err)
	}
	return code
}

func runApp(ctx context.Context, cfg AppConfig) (int, error) {
	p, err := planReport(cfg.ReportConfig, SubjectApp)
	if errors.Is(err, errNothingToRerun) {
		return nothingToRerun(cfg.Stdout, "lmp-check app", cfg.RerunFailed), nil
	}
	if err != nil {
		return ExitUsage, err
	}
	sel, err := appSelection(p.LabelFilter, p.Focus, p.Skip)
	if err != nil {
		return ExitUsage, err
	}
	if !slices.ContainsFunc(judge.Specs(), sel) {
		return ExitUsage, noSpec(SubjectApp, p.ReportConfig)
	}
	jc := cfg.Judge
	jc.Select = sel
	if jc.Out == nil {
		jc.Out = cfg.Stdout
	}
	started := time.Now()
	rep, err := judge.Run(ctx, jc)
	if err != nil {
		return ExitUsage, usagef("%v", err)
	}
	results := AppResults(rep, cfg.Strict, p.exp)
	t := jc.Timings
	if t.PongTimeout == 0 {
		t = judge.DefaultTimings()
	}
	meta := Meta{Target: rep.Target, Subject: SubjectApp,
		Profile: fmt.Sprintf("app: pong within %v, actions within %v", t.PongTimeout, t.ActionTimeout),
		Started: started.UTC().Format(time.RFC3339), Duration: time.Since(started).Seconds()}
	fmt.Fprintln(cfg.Stdout)
	code, err := p.report(meta, results, SummarizeRules(results, rules.ClientRules()))
	if err == nil && rep.NoApp {
		// Nothing was judged: as a server run against an unreachable
		// server, not a pass that a CI job would take for one.
		return ExitUsage, fmt.Errorf("no app connected within %v (--pair-timeout): nothing was judged; is the app (or its test harness, --pairing-file) running and pointed at %s?", t.FirstContact, rep.Target)
	}
	return code, err
}

// AppResults maps an app run's outcomes to results, with a server run's
// verdicts: a failed SHOULD spec is non-strict unless strict, and the
// expectations (nil for none) turn failures into expected failures and
// passes into unexpected passes.
func AppResults(rep judge.Report, strict bool, exp *Expectations) []Result {
	var out []Result
	for _, o := range rep.Outcomes {
		r := Result{Section: o.Spec.Section, Text: o.Spec.Text, Rules: o.Spec.Rules, Level: o.Spec.Level,
			Labels: o.Spec.Labels(), Duration: o.Duration, Reason: o.Message, Source: "none"}
		switch o.State {
		case judge.Passed:
			r.Verdict = Pass
		case judge.Skipped:
			r.Verdict = Skipped
		default:
			r.Verdict = Fail
			if o.Spec.Level == rules.SHOULD && !strict {
				r.Verdict = NonStrict
			}
		}
		if o.Transcript != "" {
			r.Transcripts = []Transcript{{Name: "the app's connections", Text: o.Transcript}}
		}
		exp.apply(&r)
		out = append(out, r)
	}
	return out
}

// appSelection turns --label-filter, --focus and --skip into a selection
// of the app's specs, matched as Ginkgo matches a server run's: labels by
// the filter, the regexps against "section [rules] text".
func appSelection(labelFilter string, focus, skip []string) (func(judge.Spec) bool, error) {
	if err := checkSelection(labelFilter, focus, skip); err != nil {
		return nil, err
	}
	filter := func([]string) bool { return true }
	if labelFilter != "" {
		f, err := types.ParseLabelFilter(labelFilter)
		if err != nil {
			return nil, usagef("--label-filter %q: %s", labelFilter, labelFilterMessage(err))
		}
		filter = f
	}
	compile := func(res []string) []*regexp.Regexp {
		var out []*regexp.Regexp
		for _, re := range res {
			out = append(out, regexp.MustCompile(re)) // checked by checkSelection
		}
		return out
	}
	fs, ss := compile(focus), compile(skip)
	return func(s judge.Spec) bool {
		text := s.Section + " [" + strings.Join(s.Rules, ",") + "] " + s.Text
		if !filter(s.Labels()) {
			return false
		}
		for _, re := range ss {
			if re.MatchString(text) {
				return false
			}
		}
		if len(fs) == 0 {
			return true
		}
		for _, re := range fs {
			if re.MatchString(text) {
				return true
			}
		}
		return false
	}, nil
}

// AppSpecs lists the specs of an app run as a dry run lists a server
// run's, for `lmp-check rules` and the rule matrix.
func AppSpecs() []SpecEntry {
	specs, _ := PreviewApp("", nil, nil) // no selection, no error
	return specs
}

// PreviewApp is Preview for an app run: the specs `lmp-check app` would
// judge with this selection, in the order it plays them.
func PreviewApp(labelFilter string, focus, skip []string) ([]SpecEntry, error) {
	sel, err := appSelection(labelFilter, focus, skip)
	if err != nil {
		return nil, err
	}
	var out []SpecEntry
	for _, s := range judge.Specs() {
		if sel(s) {
			out = append(out, SpecEntry{Section: s.Section, Text: s.Text, Rules: s.Rules, Level: s.Level, Labels: s.Labels()})
		}
	}
	return out, nil
}
