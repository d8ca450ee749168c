package check

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit XML, in the common dialect CI systems read (testsuites /
// testsuite / testcase with failure, skipped, system-out).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties *junitProps     `xml:"properties,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the results as JUnit XML: one testsuite per spec
// section, one testcase per spec named "[rule IDs] LEVEL requirement". Fail
// and unexpected-pass verdicts are failures; skipped and expected failures
// are skipped (with the reason); a non-strict verdict passes with the
// broken SHOULD in system-out, and an observation with what the INFO spec
// saw.
func WriteJUnit(w io.Writer, meta Meta, results []Result) error {
	doc := junitSuites{Name: "lmp-check " + meta.Target, Time: seconds(meta.Duration)}
	for _, section := range sections(results) {
		s := junitSuite{Name: section, Timestamp: junitTimestamp(meta.Started), Properties: &junitProps{Props: []junitProp{
			{Name: "subject", Value: subject(meta)}, {Name: "target", Value: meta.Target}, {Name: "profile", Value: meta.Profile},
			{Name: "strict", Value: fmt.Sprint(meta.Strict)},
		}}}
		var total float64
		for _, r := range results {
			if r.Section != section {
				continue
			}
			tc := junitTestCase{
				Name:      fmt.Sprintf("[%s] %s %s", strings.Join(r.Rules, ","), r.Level, r.Text),
				Classname: section, Time: seconds(r.Duration.Seconds()),
			}
			total += r.Duration.Seconds()
			switch r.Verdict {
			case Fail, UnexpectedPass:
				tc.Failure = &junitFailure{Message: firstLine(r.Reason), Type: string(r.Verdict), Body: details(r)}
				s.Failures++
			case Skipped, ExpectedFailure:
				tc.Skipped = &junitSkipped{Message: string(r.Verdict) + ": " + firstLine(r.Reason)}
				s.Skipped++
			case NonStrict:
				tc.SystemOut = "non-strict (fails only under --strict): " + details(r)
			case Observed:
				tc.SystemOut = "observed (INFO, fails nothing): " + details(r)
			}
			s.Tests++
			s.Cases = append(s.Cases, tc)
		}
		s.Time = seconds(total)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// details is a failure's message, location and transcripts.
func details(r Result) string {
	var b strings.Builder
	b.WriteString(r.Reason)
	if r.Location != "" {
		fmt.Fprintf(&b, "\nat %s", r.Location)
	}
	for _, t := range r.Transcripts {
		fmt.Fprintf(&b, "\n\ntranscript of %s:\n%s", t.Name, t.Text)
	}
	return b.String()
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// junitTimestamp renders an RFC 3339 start time as the JUnit schema's
// timestamp: ISO 8601 without a zone designator (the time is UTC), which is
// what the JUnit XSD and Ginkgo's own JUnit reporter use. A value that does
// not parse is left out rather than written invalid.
func junitTimestamp(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}
