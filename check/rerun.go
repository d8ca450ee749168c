package check

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
)

// RerunFocus reads an earlier run's JSON report and returns one --focus
// expression per spec that failed in it (fail, unexpected-pass or
// non-strict), matching that spec's text exactly. An empty list means
// nothing failed.
func RerunFocus(path string) ([]string, error) {
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
	var focus []string
	for _, s := range rep.Specs {
		switch Verdict(s.Verdict) {
		case Fail, UnexpectedPass, NonStrict:
			// The spec's full text ends with its requirement.
			re := regexp.QuoteMeta(s.Text) + "$"
			if !slices.Contains(focus, re) {
				focus = append(focus, re)
			}
		}
	}
	return focus, nil
}
