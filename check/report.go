package check

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ReportConfig is what a server run (Config) and an app run (AppConfig)
// share: which specs run, how their outcomes become verdicts, and where
// the reports go. Both commands take it from the same flags.
type ReportConfig struct {
	// LabelFilter, Focus and Skip select the specs, as Ginkgo does:
	// labels by the filter, the regexps against a spec's text.
	LabelFilter string
	Focus, Skip []string
	// RerunFailed is an earlier run's JSON report, of the same subject:
	// only the specs that failed in it run (added to Focus).
	RerunFailed string
	// Expect is an expectations file (Expectations): known failures.
	Expect string
	// Strict makes failed SHOULD specs fail the run.
	Strict bool

	JUnitReport string
	JSONReport  string
	// HTMLReport is the file of the self-contained HTML report.
	HTMLReport string
	// Color colours the summary's verdicts; Verbose lists the specs not
	// selected too.
	Color   bool
	Verbose bool

	Stdout, Stderr io.Writer
}

// withDefaults sets unset outputs to the process's.
func (rc *ReportConfig) withDefaults() {
	if rc.Stdout == nil {
		rc.Stdout = os.Stdout
	}
	if rc.Stderr == nil {
		rc.Stderr = os.Stderr
	}
}

// reportPlan is a ReportConfig once validated: the expectations file
// read, Focus extended with --rerun-failed's specs, the selection checked.
type reportPlan struct {
	ReportConfig
	exp *Expectations
}

// errNothingToRerun ends a --rerun-failed run whose report has no failure.
var errNothingToRerun = errors.New("nothing to rerun")

// planReport checks rc before anything starts, for a run of subject
// (SubjectServer or SubjectApp): a usage error names the flag at fault.
func planReport(rc ReportConfig, subject string) (*reportPlan, error) {
	p := &reportPlan{ReportConfig: rc}
	p.Focus = append([]string(nil), rc.Focus...)
	if rc.Expect != "" {
		e, err := LoadExpectations(rc.Expect)
		if err != nil {
			return nil, usagef("--expect: %v", err)
		}
		p.exp = e
	}
	if rc.RerunFailed != "" {
		focus, err := rerunFocus(rc.RerunFailed, subject)
		if err != nil {
			return nil, err
		}
		if len(focus) == 0 {
			return nil, errNothingToRerun
		}
		p.Focus = append(p.Focus, focus...)
	}
	if err := checkSelection(p.LabelFilter, p.Focus, p.Skip); err != nil {
		return nil, err
	}
	return p, nil
}

// report writes the summary to Stdout and the report files of a finished
// run, and returns its exit code.
func (p *reportPlan) report(meta Meta, results []Result, sum Summary) (int, error) {
	meta.Strict, meta.Color = p.Strict, p.Color
	WriteText(p.Stdout, meta, results, sum, p.Verbose)
	for _, f := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{
		{"--junit-report", p.JUnitReport, func(w io.Writer) error { return WriteJUnit(w, meta, results) }},
		{"--json-report", p.JSONReport, func(w io.Writer) error { return WriteJSON(w, meta, results, sum) }},
		{"--html-report", p.HTMLReport, func(w io.Writer) error { return WriteHTML(w, meta, results, sum) }},
	} {
		if err := writeFile(f.path, f.write); err != nil {
			return ExitUsage, fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	return sum.ExitCode(), nil
}

// noSpec is the usage error of a run of subject whose selection matches
// none of its specs. When it matches specs of the other run (a client
// rule given to a server run, or the reverse), it names that run's
// command.
func noSpec(subject string, rc ReportConfig) error {
	other, preview := SubjectApp, PreviewApp
	if subject == SubjectApp {
		other, preview = SubjectServer, Preview
	}
	if specs, err := preview(rc.LabelFilter, rc.Focus, rc.Skip); err == nil && len(specs) > 0 {
		return usagef("the selection (%s) matches no spec of %s, but %d of %s: run %s",
			selectionString(rc), subjectRun[subject], len(specs), subjectRun[other], subjectCommand[other])
	}
	return usagef("the selection (%s) matches no spec of %s: see lmp-check list --subject %s", selectionString(rc), subjectRun[subject], subject)
}

// nothingToRerun is the message and exit code of a --rerun-failed run
// whose report holds no failure.
func nothingToRerun(w io.Writer, command, report string) int {
	fmt.Fprintf(w, "%s: no spec failed in %s: nothing to rerun\n", command, report)
	return ExitConformant
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
