package main

import (
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loomi-lmp/lmpkit/internal/browsertest"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write docs/img/report.png from the browser test")

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
	sections := "section:transport"
	if *updateScreenshot {
		sections = "section:transport || section:pairing || section:envelope" // a fuller picture
	}
	code, stdout, stderr := runBinary(t, bin, "--label-filter", sections, "--expect", expect, "--json-report", jsonRep, "--html-report", htmlRep)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rep := readReport(t, jsonRep)

	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+htmlRep), chromedp.WaitVisible(chromedp.CSS("#counts"))); err != nil {
		t.Fatal(err)
	}
	type shown struct {
		Counts map[string]string `json:"counts"`
		Listed map[string]int    `json:"listed"` // every spec, by verdict
		Shown  map[string]int    `json:"shown"`  // those the filters show
		Specs  int               `json:"specs"`
		Result string            `json:"result"`
	}
	read := func() shown {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`(() => {
			const counts = {}, listed = {}, shown = {};
			for (const td of document.querySelectorAll("#counts td[data-count]")) counts[td.dataset.count] = td.textContent;
			for (const d of document.querySelectorAll("details.spec")) {
				listed[d.dataset.verdict] = (listed[d.dataset.verdict] || 0) + 1;
				if (!d.hidden) shown[d.dataset.verdict] = (shown[d.dataset.verdict] || 0) + 1;
			}
			return {counts, listed, shown, specs: document.querySelectorAll("details.spec").length, result: document.getElementById("result").textContent};
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
	if rep.Counts["unexpected-pass"] == 0 || rep.Counts["pass"] == 0 {
		t.Fatalf("run is not the one this test means: %v", rep.Counts)
	}

	if *updateScreenshot {
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "img", "report.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Specs the run did not select are hidden until asked for.
	unselected, selected := 0, map[string]int{}
	for _, sp := range rep.Specs {
		if sp.Verdict == "skipped" && sp.Reason == "not selected" {
			unselected++
		} else {
			selected[sp.Verdict]++
		}
	}
	if unselected == 0 || !maps.Equal(s.Shown, selected) {
		t.Errorf("page shows %v at first, want the %v selected (%d not selected)", s.Shown, selected, unselected)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#show-unselected"))); err != nil {
		t.Fatal(err)
	}
	if s := read(); !maps.Equal(s.Shown, s.Listed) {
		t.Errorf("with the specs not selected the page shows %v of %v", s.Shown, s.Listed)
	}

	// Filtering out the passes leaves the rest shown.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[data-filter="verdict"][value="pass"]`))); err != nil {
		t.Fatal(err)
	}
	if s := read(); s.Shown["pass"] != 0 || s.Shown["unexpected-pass"] != rep.Counts["unexpected-pass"] {
		t.Errorf("after unticking pass the page shows %v", s.Shown)
	}
	// The rule filter keeps one rule's specs.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[data-filter="verdict"][value="pass"]`)), chromedp.SendKeys(chromedp.CSS("#rule-filter"), "T-2")); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, sp := range rep.Specs {
		if slices.Contains(sp.Rules, "T-2") {
			want++
		}
	}
	total := 0
	for _, n := range read().Shown {
		total += n
	}
	if total != want || want == 0 {
		t.Errorf("rule filter T-2 lists %d specs, the JSON report has %d", total, want)
	}
}
