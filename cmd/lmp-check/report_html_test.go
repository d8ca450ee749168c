package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loomi-lmp/lmpkit/internal/browsertest"
)

// TestHTMLReportInChromium runs lmp-check with both reports and reads the
// HTML one in a real headless Chromium: the counts it shows, and the specs
// it lists by verdict, match the JSON report; the verdict filter hides
// what it should.
func TestHTMLReportInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary against an in-process server")
	}
	ctx := browsertest.New(t, 1200, 900, 60*time.Second)
	bin := buildBinary(t)
	dir := t.TempDir()
	jsonRep, htmlRep, expect := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html"), filepath.Join(dir, "expect.yaml")
	// A known failure that does not fail makes one unexpected pass.
	if err := os.WriteFile(expect, []byte("expectations:\n  - rule: T-2\n    reason: pretend /health is broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runBinary(t, bin, "--label-filter", "section:transport", "--expect", expect, "--json-report", jsonRep, "--html-report", htmlRep)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rep := readReport(t, jsonRep)

	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+htmlRep), chromedp.WaitVisible(chromedp.CSS("#counts"))); err != nil {
		t.Fatal(err)
	}
	type shown struct {
		Counts map[string]string `json:"counts"`
		Listed map[string]int    `json:"listed"`
		Specs  int               `json:"specs"`
		Result string            `json:"result"`
	}
	read := func() shown {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`(() => {
			const counts = {}, listed = {};
			for (const td of document.querySelectorAll("#counts td[data-count]")) counts[td.dataset.count] = td.textContent;
			for (const d of document.querySelectorAll("details.spec")) if (!d.hidden) listed[d.dataset.verdict] = (listed[d.dataset.verdict] || 0) + 1;
			return {counts, listed, specs: document.querySelectorAll("details.spec").length, result: document.getElementById("result").textContent};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := read()
	if s.Specs != len(rep.Specs) || s.Result != "Not conformant" {
		t.Fatalf("page lists %d specs (%q), the JSON report %d", s.Specs, s.Result, len(rep.Specs))
	}
	for v, n := range rep.Counts {
		if s.Counts[v] != strconv.Itoa(n) || s.Listed[v] != n {
			t.Errorf("verdict %s: JSON %d, page shows %s and lists %d", v, n, s.Counts[v], s.Listed[v])
		}
	}
	if rep.Counts["unexpected-pass"] != 1 || rep.Counts["pass"] == 0 {
		t.Fatalf("run is not the one this test means: %v", rep.Counts)
	}

	// Filtering out the passes leaves the rest listed.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[data-filter="verdict"][value="pass"]`))); err != nil {
		t.Fatal(err)
	}
	if s := read(); s.Listed["pass"] != 0 || s.Listed["unexpected-pass"] != 1 {
		t.Errorf("after unticking pass the page lists %v", s.Listed)
	}
	// The rule filter keeps one rule's specs.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[data-filter="verdict"][value="pass"]`)), chromedp.SendKeys(chromedp.CSS("#rule-filter"), "T-2")); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, sp := range rep.Specs {
		for _, id := range sp.Rules {
			if id == "T-2" {
				want++
				break
			}
		}
	}
	total := 0
	for _, n := range read().Listed {
		total += n
	}
	if total != want || want == 0 {
		t.Errorf("rule filter T-2 lists %d specs, the JSON report has %d", total, want)
	}
}
