package main

import (
	"context"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loomi-lmp/lmpkit/check"
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
	if rep.Counts["unexpected-pass"] == 0 || rep.Counts["pass"] == 0 {
		t.Fatalf("run is not the one this test means: %v", rep.Counts)
	}
	if *updateScreenshot {
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+htmlRep), chromedp.WaitVisible(chromedp.CSS("#counts"))); err != nil {
			t.Fatal(err)
		}
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "img", "report.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkHTMLReport(t, ctx, htmlRep, rep, "T-2", "Not conformant")
}

// shownReport is what the HTML report shows in the browser.
type shownReport struct {
	Counts map[string]string `json:"counts"`
	Listed map[string]int    `json:"listed"` // every spec, by verdict
	Shown  map[string]int    `json:"shown"`  // those the filters show
	Specs  int               `json:"specs"`
	Result string            `json:"result"`
}

// checkHTMLReport reads the HTML report htmlRep in the browser of ctx, of
// a server run or an app run alike, against rep, the same run's JSON
// report: the page states result ("Conformant", "Not conformant"); the
// counts it shows, and the specs it lists by verdict, match rep; specs
// not selected are hidden until asked for; unticking the passes hides
// them alone; the rule filter set to rule keeps rule's specs alone. rep
// must hold passes, unexpected passes, specs not selected and specs of
// rule.
func checkHTMLReport(t *testing.T, ctx context.Context, htmlRep string, rep check.JSONReport, rule, result string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+htmlRep), chromedp.WaitVisible(chromedp.CSS("#counts"))); err != nil {
		t.Fatal(err)
	}
	read := func() shownReport {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[shownReport](`(() => {
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
	if s.Specs != len(rep.Specs) || s.Result != result {
		t.Fatalf("page lists %d specs (%q), the JSON report %d (want %q)", s.Specs, s.Result, len(rep.Specs), result)
	}
	for v, n := range rep.Counts {
		if s.Counts[v] != strconv.Itoa(n) || s.Listed[v] != n {
			t.Errorf("verdict %s: JSON %d, page shows %s and lists %d", v, n, s.Counts[v], s.Listed[v])
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
	if s := read(); s.Shown["pass"] != 0 || s.Shown["unexpected-pass"] != rep.Counts["unexpected-pass"] || s.Shown["unexpected-pass"] == 0 {
		t.Errorf("after unticking pass the page shows %v", s.Shown)
	}
	// The rule filter keeps one rule's specs.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[data-filter="verdict"][value="pass"]`)), chromedp.SendKeys(chromedp.CSS("#rule-filter"), rule)); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, sp := range rep.Specs {
		if slices.Contains(sp.Rules, rule) {
			want++
		}
	}
	total := 0
	for _, n := range read().Shown {
		total += n
	}
	if total != want || want == 0 {
		t.Errorf("rule filter %s lists %d specs, the JSON report has %d", rule, total, want)
	}
}
