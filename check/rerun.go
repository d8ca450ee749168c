package check

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
)

// rerunFocus reads an earlier run's JSON report and returns one --focus
// expression per spec that failed in it (fail, unexpected-pass or
// non-strict), matching that spec's text exactly. An empty list means
// nothing failed. The report must be of a run of subject: a server run's
// specs are not an app run's.
func rerunFocus(path, subject string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--rerun-failed: %v", err)
	}
	var rep JSONReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, usagef("--rerun-failed %s: not a JSON report: %v", path, err)
	}
	if rep.Format != ReportFormat {
		return nil, usagef("--rerun-failed %s: format %q, want %q (write it with --json-report)", path, rep.Format, ReportFormat)
	}
	if rep.Subject != subject {
		return nil, usagef("--rerun-failed %s: the report of %s, not of %s: rerun it with %s --rerun-failed",
			path, subjectRun[rep.Subject], subjectRun[subject], subjectCommand[rep.Subject])
	}
	var focus []string
	for _, s := range rep.Specs {
		switch Verdict(s.Verdict) {
		case Fail, UnexpectedPass, NonStrict:
			// The spec's full text ends with its requirement, in a server
			// run's focus as in an app run's.
			re := regexp.QuoteMeta(s.Text) + "$"
			if !slices.Contains(focus, re) {
				focus = append(focus, re)
			}
		}
	}
	return focus, nil
}

// subjectRun and subjectCommand name each subject's run and command.
var (
	subjectRun     = map[string]string{SubjectServer: "a server run", SubjectApp: "an app run"}
	subjectCommand = map[string]string{SubjectServer: "lmp-check", SubjectApp: "lmp-check app"}
)
