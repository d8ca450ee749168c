package main

import (
	"flag"
	"io"
	"strings"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/tty"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// subjectHelp is what the shared flags say for one subject of a run
// (check.SubjectServer, check.SubjectApp) where the two differ.
var subjectHelp = map[string]struct{ labels, strict, verbose string }{
	check.SubjectServer: {
		labels:  "rule IDs, MUST/SHOULD/INFO, section:<name>, driver, timer …), e.g. 'MUST && !timer'",
		strict:  "SHOULD failures, and timings that deviate from the spec, fail the run (INFO observations never do)",
		verbose: "stream Ginkgo's progress to stderr and list unselected specs",
	},
	check.SubjectApp: {
		labels:  "rule IDs, MUST/SHOULD, app, action:<name>), e.g. 'C-5 || C-6'",
		strict:  "SHOULD failures fail the run",
		verbose: "list unselected specs too",
	},
}

// selectionFlags adds --label-filter, --focus and --skip: the selection of
// a run of subject, or of lmp-check list (subject "").
func selectionFlags(fs *flag.FlagSet, rc *check.ReportConfig, subject string) {
	labels := "rule IDs, MUST/SHOULD/INFO, section:<name>, driver, app, action:<name> …), e.g. 'C-5 || T-4'"
	if h, ok := subjectHelp[subject]; ok {
		labels = h.labels
	}
	fs.StringVar(&rc.LabelFilter, "label-filter", "", "select only specs whose labels match this Ginkgo label filter (see lmp-check list: "+labels)
	fs.Var((*stringList)(&rc.Focus), "focus", "select only specs whose section, rules or text match this regexp (repeatable)")
	fs.Var((*stringList)(&rc.Skip), "skip", "leave out specs whose section, rules or text match this regexp (repeatable)")
}

// reportFlags adds the flags a server run and an app run share: the
// selection, --rerun-failed, --expect, --strict, the report files and -v.
// The colour of the summary follows stdout.
func reportFlags(fs *flag.FlagSet, rc *check.ReportConfig, subject string, stdout io.Writer) {
	h := subjectHelp[subject]
	selectionFlags(fs, rc, subject)
	command := "lmp-check"
	if subject == check.SubjectApp {
		command = "lmp-check app"
	}
	fs.StringVar(&rc.RerunFailed, "rerun-failed", "", "run only the specs that failed in this earlier --json-report of "+command+"; with none, say so and exit 0")
	fs.StringVar(&rc.Expect, "expect", "", "YAML file of known failures (rule or spec, reason, link; CI.md): a listed failure does not fail the run, a listed spec that passes does")
	fs.BoolVar(&rc.Strict, "strict", false, h.strict)
	fs.StringVar(&rc.JUnitReport, "junit-report", "", "write a JUnit XML report to this file")
	fs.StringVar(&rc.JSONReport, "json-report", "", "write a JSON report (schema/report/lmp-check-report.json, subject \""+subject+"\") to this file")
	fs.StringVar(&rc.HTMLReport, "html-report", "", "write a self-contained HTML report to this file")
	fs.BoolVar(&rc.Verbose, "v", false, h.verbose)
	rc.Stdout = stdout
	rc.Color = tty.Color(stdout)
}
