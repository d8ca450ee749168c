package check

import (
	"bytes"
	"strings"
	"testing"
)

func TestHTMLReport(t *testing.T) {
	res, sum, meta := sampleResults(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, meta, res, sum); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`data-verdict="fail" data-level="MUST" data-rules="T-4"`, // every spec is an item of the filter
		`late &lt;&amp;&gt; &#34;x&#34;`,                         // failure messages are escaped
		`<caption>transcript of device</caption>`,                // transcripts are tables of frames
		`<td class="n">0.000s</td><td>→</td>`,
		`class="sec-fail"`, // a section is coloured by its worst verdict
		`data-count="fail">1<`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML report lacks %s", want)
		}
	}
	// Self-contained: nothing is fetched.
	for _, ext := range []string{"<link", " src="} {
		if strings.Contains(page, ext) {
			t.Errorf("HTML report loads an outside resource: %s", ext)
		}
	}
	if n := strings.Count(page, `class="item spec"`); n != len(res) {
		t.Errorf("%d specs in the page, %d results", n, len(res))
	}
}
