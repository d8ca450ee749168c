package campaign

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "schema", "report", "fuzz-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	if err := c.AddResource("fuzz-report.json", bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("fuzz-report.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReportMatchesItsSchema writes the report of a real campaign with a
// finding (a planted fault) and validates it against
// schema/report/fuzz-report.json.
func TestReportMatchesItsSchema(t *testing.T) {
	s := reportSchema(t)
	f := newFakeServer(t, faultEchoSecret)
	rep := campaignOn(t, f.url(), time.Second, t.TempDir())
	if len(rep.Findings) == 0 {
		t.Fatalf("want a finding to validate:\n%s", rep.Summary())
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Fatalf("report breaks its schema: %v\n%s", err, buf.Bytes())
	}
	// A report with a made-up finding kind must not pass: the schema
	// lists every oracle.
	doc.(map[string]any)["findings"].([]any)[0].(map[string]any)["kind"] = "made-up"
	if s.Validate(doc) == nil {
		t.Fatal("schema accepted an unknown finding kind")
	}
}
