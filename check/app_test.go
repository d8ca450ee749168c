package check

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/appclient"
	"github.com/loomi-lmp/lmpkit/judge"
)

// TestRunAppReports runs `lmp-check app` (RunApp) against the reference
// app client, narrowed by --label-filter to the heartbeat and replay
// rules, and checks its reports: exit code 0, the selected specs passed,
// the others "not selected", the JSON report valid against its schema
// with subject "app", and the text summary naming the client rules.
func TestRunAppReports(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pairing := filepath.Join(dir, "pairing.json")
	go func() {
		_ = appclient.Run(ctx, appclient.Options{PairingFile: pairing, ReconnectDelay: 50 * time.Millisecond})
	}()
	var out, errOut bytes.Buffer
	jsonPath, junitPath, htmlPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.html")
	code := RunApp(ctx, AppConfig{
		Judge: judge.Config{Listen: "127.0.0.1:0", PairingFile: pairing, Timings: judge.Timings{PongTimeout: 10 * time.Second,
			FirstContact: 20 * time.Second, ActionTimeout: 20 * time.Second, Reconnect: 20 * time.Second, Quiet: time.Second, Burst: 200}},
		ReportConfig: ReportConfig{LabelFilter: "C-3 || C-5", JSONReport: jsonPath, JUnitReport: junitPath, HTMLReport: htmlPath,
			Stdout: &out, Stderr: &errOut},
	})
	if code != ExitConformant {
		t.Fatalf("exit code %d, want 0\n%s\n%s", code, out.String(), errOut.String())
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if err := compileReportSchema(t).Validate(doc); err != nil {
		t.Fatalf("app report breaks its schema: %v", err)
	}
	var rep JSONReport
	_ = json.Unmarshal(raw, &rep)
	if rep.Subject != SubjectApp || rep.Coverage.RulesTotal != 13 {
		t.Errorf("subject %q, rules_total %d; want app, 13", rep.Subject, rep.Coverage.RulesTotal)
	}
	passed := 0
	for _, s := range rep.Specs {
		selected := strings.Contains(strings.Join(s.Rules, ","), "C-3") || strings.Contains(strings.Join(s.Rules, ","), "C-5")
		switch {
		case selected && s.Verdict == "pass":
			passed++
		case selected:
			t.Errorf("%s: %s (%s), want pass", s.Text, s.Verdict, s.Reason)
		case s.Verdict != "skipped" || s.Reason != "not selected":
			t.Errorf("%s: %s (%s), want skipped: not selected", s.Text, s.Verdict, s.Reason)
		}
	}
	if passed < 5 {
		t.Errorf("%d selected specs passed, want the 5 of C-3 and C-5", passed)
	}
	for _, want := range []string{"lmp-check app: the app paired at ws://127.0.0.1:", "App: heartbeat", "[C-3]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the text summary lacks %q:\n%s", want, out.String())
		}
	}
	for _, p := range []string{junitPath, htmlPath} {
		if b, err := os.ReadFile(p); err != nil || !bytes.Contains(b, []byte("C-5")) {
			t.Errorf("%s: %v, or no C-5 in it", p, err)
		}
	}
}

func TestAppSelectionRejectsBadFilters(t *testing.T) {
	if _, err := appSelection("C-3 &&", nil, nil); err == nil {
		t.Error("a bad label filter was accepted")
	}
	sel, err := appSelection("", []string{"unknown types"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range judge.Specs() {
		if sel(s) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("--focus 'unknown types' selected %d specs, want the 2 of that section", n)
	}
}

// TestRunAppWithoutAnApp: when no app connects within the pairing
// timeout, the run still writes its reports (every spec skipped, saying
// why) but exits 2 with a line that says nothing was judged, as a server
// run against an unreachable server does, never 0.
func TestRunAppWithoutAnApp(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	var out, errOut bytes.Buffer
	tm := judge.DefaultTimings()
	tm.FirstContact = 200 * time.Millisecond
	code := RunApp(context.Background(), AppConfig{Judge: judge.Config{Listen: "127.0.0.1:0", Timings: tm},
		ReportConfig: ReportConfig{JSONReport: jsonPath, Stdout: &out, Stderr: &errOut}})
	if code != ExitUsage || !strings.Contains(errOut.String(), "no app connected within 200ms") {
		t.Errorf("exit %d, want 2 and a line saying no app connected\n%s", code, errOut.String())
	}
	raw, err := os.ReadFile(jsonPath)
	var rep JSONReport
	if err == nil {
		err = json.Unmarshal(raw, &rep)
	}
	if err != nil || rep.Counts["skipped"] != len(judge.Specs()) {
		t.Errorf("report: %v, counts %v", err, rep.Counts)
	}
}
