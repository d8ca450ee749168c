package check

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

func sampleResults(t *testing.T) ([]Result, Summary, Meta) {
	t.Helper()
	exp, err := ParseExpectations("x", []byte("expectations:\n  - {rule: T-5, reason: known, link: https://x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep := types.Report{SpecReports: types.SpecReports{
		spec("§1 Transport", "[T-2] health", types.SpecStatePassed, "", "MUST", "T-2"),
		spec("§1 Transport", "[T-4] ping", types.SpecStateFailed, "late <&> \"x\"", "MUST", "T-4"),
		spec("§1 Transport", "[T-3] binary", types.SpecStateFailed, "no 1003", "SHOULD", "T-3"),
		spec("§2 Envelope", "[E-5] replay", types.SpecStateSkipped, "needs --driver-url", "MUST", "E-5"),
		spec("§2 Envelope", "[T-5] misses", types.SpecStateFailed, "kept open", "MUST", "T-5"),
	}}
	rep.SpecReports[1].ReportEntries = types.ReportEntries{{Name: "transcript: device", Value: types.WrapEntryValue("0.000s → {}\n")}}
	res := Results(rep, false, exp)
	return res, Summarize(res), Meta{Target: "ws://x/ws", Profile: "spec", Started: "2026-01-01T00:00:00Z", Duration: 1.5}
}

func TestJUnitParses(t *testing.T) {
	res, _, meta := sampleResults(t)
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, meta, res); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"testsuites"`
		Tests   int      `xml:"tests,attr"`
		Fail    int      `xml:"failures,attr"`
		Suites  []struct {
			Name      string `xml:"name,attr"`
			Timestamp string `xml:"timestamp,attr"`
			Cases     []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, buf.String())
	}
	if doc.Tests != 5 || doc.Fail != 1 || len(doc.Suites) != 2 {
		t.Fatalf("tests=%d failures=%d suites=%d\n%s", doc.Tests, doc.Fail, len(doc.Suites), buf.String())
	}
	// The JUnit XSD's timestamp is ISO 8601 without a zone designator.
	if ts := doc.Suites[0].Timestamp; ts != "2026-01-01T00:00:00" {
		t.Errorf("testsuite timestamp %q, want 2026-01-01T00:00:00 (no zone)", ts)
	}
	c := doc.Suites[0].Cases[1]
	if c.Failure == nil || c.Failure.Message != `late <&> "x"` || !strings.Contains(c.Failure.Body, "transcript of device") {
		t.Errorf("failure case: %+v", c)
	}
	if doc.Suites[1].Cases[0].Skipped == nil || doc.Suites[1].Cases[1].Skipped == nil {
		t.Errorf("skipped and expected-failure cases must be <skipped>: %+v", doc.Suites[1].Cases)
	}
}

func TestJSONReportValidates(t *testing.T) {
	res, sum, meta := sampleResults(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, meta, res, sum); err != nil {
		t.Fatal(err)
	}
	sch := compileReportSchema(t)
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("report breaks its schema: %v\n%s", err, buf.String())
	}
	// The schema is not vacuous: a bad verdict is rejected.
	doc.(map[string]any)["specs"].([]any)[0].(map[string]any)["verdict"] = "great"
	if sch.Validate(doc) == nil {
		t.Fatal("schema accepted an unknown verdict")
	}
}

func compileReportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join("..", "schema", "report", "lmp-check-report.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	if err := c.AddResource("report.json", bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("report.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
