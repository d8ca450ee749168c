package campaign

import (
	"bytes"
	"html"
	"os"
	"strings"
	"testing"
	"time"
)

// TestHTMLReportShowsFindingsAndReproducers writes the HTML report of a
// real campaign with a finding (a planted fault): every finding is an item
// with its rule, and its saved, shrunk reproducer is shown in full.
func TestHTMLReportShowsFindingsAndReproducers(t *testing.T) {
	f := newFakeServer(t, faultEchoSecret)
	rep := campaignOn(t, f.url(), time.Second, t.TempDir())
	if len(rep.Findings) == 0 {
		t.Fatalf("want a finding to show:\n%s", rep.Summary())
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, `class="item finding"`); n != len(rep.Findings) {
		t.Errorf("%d findings in the page, %d in the report", n, len(rep.Findings))
	}
	for _, fd := range rep.Findings {
		if !strings.Contains(page, `id="`+fd.ID+`" data-verdict="finding" data-rules="`+fd.Rule+`"`) {
			t.Errorf("finding %s not an item of rule %s", fd.ID, fd.Rule)
		}
		if fd.Reproducer == "" {
			continue
		}
		raw, err := os.ReadFile(fd.Reproducer)
		if err != nil {
			t.Fatal(err)
		}
		// The reproducer's first episode kind, as the page escapes it.
		r, err := LoadReproducer(fd.Reproducer)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page, html.EscapeString(`"kind": "`+r.Episodes[0].Kind+`"`)) || len(raw) == 0 {
			t.Errorf("reproducer %s not shown", fd.Reproducer)
		}
	}
}
