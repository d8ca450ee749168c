package check

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/loomi-lmp/lmpkit/judge"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// SubjectApp is Meta.Subject of an app run (lmp-check app): the reports
// then judge the client rules (C-1 …) of an app, not a server.
const SubjectApp = "app"

// AppConfig is one `lmp-check app` run, as the command line describes it.
type AppConfig struct {
	Judge       judge.Config
	Strict      bool
	LabelFilter string
	Focus, Skip []string
	JUnitReport string
	JSONReport  string
	HTMLReport  string
	Color       bool
	Verbose     bool

	Stdout, Stderr io.Writer
}

// RunApp judges an app (package judge) and writes the same reports as a
// server run, with the same verdicts and exit codes.
func RunApp(ctx context.Context, cfg AppConfig) int {
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	code, err := runApp(ctx, cfg)
	if err != nil {
		fmt.Fprintf(cfg.Stderr, "lmp-check app: %v\n", err)
	}
	return code
}

func runApp(ctx context.Context, cfg AppConfig) (int, error) {
	sel, err := appSelection(cfg.LabelFilter, cfg.Focus, cfg.Skip)
	if err != nil {
		return ExitUsage, err
	}
	any := false
	for _, s := range judge.Specs() {
		any = any || sel(s)
	}
	if !any {
		return ExitUsage, usagef("the selection (%s) matches no spec of an app run: see lmp-check rules", selectionString(Config{LabelFilter: cfg.LabelFilter, Focus: cfg.Focus, Skip: cfg.Skip}))
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
	results := AppResults(rep, cfg.Strict)
	sum := SummarizeRules(results, rules.ClientRules())
	t := jc.Timings
	if t.PongTimeout == 0 {
		t = judge.DefaultTimings()
	}
	meta := Meta{Target: rep.Target, Subject: SubjectApp, Strict: cfg.Strict, Color: cfg.Color,
		Profile: fmt.Sprintf("app: pong within %v, actions within %v", t.PongTimeout, t.ActionTimeout),
		Started: started.UTC().Format(time.RFC3339), Duration: time.Since(started).Seconds()}
	fmt.Fprintln(cfg.Stdout)
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

// AppResults maps an app run's outcomes to results, with a server run's
// verdicts: a failed SHOULD spec is non-strict unless strict.
func AppResults(rep judge.Report, strict bool) []Result {
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
	var out []SpecEntry
	for _, s := range judge.Specs() {
		out = append(out, SpecEntry{Section: s.Section, Text: s.Text, Rules: s.Rules, Level: s.Level, Labels: s.Labels()})
	}
	return out
}
