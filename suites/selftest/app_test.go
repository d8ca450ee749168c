package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/mutant"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// appRuns is how many app runs go at once: each is two processes that
// mostly wait on each other (all fourteen runs take about 35 s of CPU).
const appRuns = 8

// TestAppSelfTest is the self-test's second catalogue
// (internal/mutant/appclient.yaml): it builds lmp-check once and the
// reference app client (cmd/lmp-appclient) once pristine and once per
// mutant, then runs `lmp-check app --pairing-file` against each, the
// client pairing from that file as a test harness does. The pristine
// client must pass every spec; each mutant, judged on its rules only
// (--label-filter), must fail a MUST spec labelled with one of them, or,
// when the catalogue says only a SHOULD spec can catch it, fail one under
// --strict and no MUST spec of its rules.
func TestAppSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("the app self-test builds and judges every faulty app client")
	}
	ms, err := mutant.AppCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checkBin, err := buildCheck(dir)
	if err != nil {
		t.Fatal(err)
	}
	slots := make(chan struct{}, appRuns)
	t.Run("pristine", func(t *testing.T) {
		bin, err := mutant.BuildAppClient(nil, moduleRoot, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		o := runApp(t, checkBin, bin, "", false)
		if o.exit != check.ExitConformant {
			t.Errorf("exit %d, want 0\n%s", o.exit, o.output)
		}
		for _, s := range o.report.Specs {
			if s.Verdict != string(check.Pass) {
				t.Errorf("[%s] %s: %s (%s)", strings.Join(s.Rules, ","), s.Text, s.Verdict, s.Reason)
			}
		}
		if len(o.report.Specs) == 0 {
			t.Errorf("the report holds no spec\n%s", o.output)
		}
	})
	for _, m := range ms {
		t.Run(m.ID, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			bin, err := mutant.BuildAppClient(&m, moduleRoot, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			strict := m.StrictOnly != ""
			o := runApp(t, checkBin, bin, strings.Join(m.Rules, " || "), strict)
			var caughtMust, caughtShould []string
			for _, s := range o.report.Specs {
				if s.Verdict != string(check.Fail) || !slices.ContainsFunc(s.Rules, func(id string) bool { return slices.Contains(m.Rules, id) }) {
					continue
				}
				line := fmt.Sprintf("%s [%s] %s: %s", s.Level, strings.Join(s.Rules, ","), s.Text, s.Reason)
				if s.Level == string(rules.MUST) {
					caughtMust = append(caughtMust, line)
				} else {
					caughtShould = append(caughtShould, line)
				}
			}
			switch {
			case o.exit != check.ExitNotConformant:
				t.Errorf("%s (%s): exit %d, want 1\n%s", m.ID, m.Does, o.exit, o.output)
			case !strict && len(caughtMust) == 0:
				t.Errorf("%s (%s): no MUST spec of %v failed\n%s", m.ID, m.Does, m.Rules, o.output)
			case strict && (len(caughtShould) == 0 || len(caughtMust) > 0):
				t.Errorf("%s (%s): under --strict, want a failing SHOULD spec of %v and no MUST one; MUST %q, SHOULD %q", m.ID, m.Does, m.Rules, caughtMust, caughtShould)
			default:
				t.Logf("caught by %s", strings.Join(append(caughtMust, caughtShould...), "; "))
			}
		})
	}
}

// runApp runs `lmp-check app` against the app client bin, which pairs
// from the pairing file as a harness does; the client is stopped when the
// judge has ended.
func runApp(t *testing.T, checkBin, clientBin, labelFilter string, strict bool) outcome {
	t.Helper()
	dir := t.TempDir()
	pairing, report := filepath.Join(dir, "pairing.json"), filepath.Join(dir, "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	app := exec.CommandContext(ctx, clientBin, "--pairing-file", pairing, "--state-file", filepath.Join(dir, "state.json"), "--reconnect-delay", "50ms")
	var appOut bytes.Buffer
	app.Stdout, app.Stderr = io.Discard, &appOut
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = app.Process.Kill() // the client this test started
		_ = app.Wait()
	}()
	args := []string{"app", "--listen", "127.0.0.1:0", "--pairing-file", pairing, "--json-report", report,
		"--pair-timeout", "60s", "--action-timeout", "10s", "--reconnect-timeout", "10s", "--quiet", "1s"}
	if labelFilter != "" {
		args = append(args, "--label-filter", labelFilter)
	}
	if strict {
		args = append(args, "--strict")
	}
	judge := exec.CommandContext(ctx, checkBin, args...)
	var out bytes.Buffer
	judge.Stdout, judge.Stderr = &out, &out
	start := time.Now()
	err := judge.Run()
	o := outcome{output: out.String(), duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("lmp-check app: %v", err)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no report: %v\n%s", err, o.output)
	}
	if err := json.Unmarshal(raw, &o.report); err != nil {
		t.Fatal(err)
	}
	return o
}

// appCatchers are the app run's specs that carry one of m's rules.
func appCatchers(m mutant.Mutant) []check.SpecEntry {
	var out []check.SpecEntry
	for _, s := range check.AppSpecs() {
		if slices.ContainsFunc(s.Rules, func(id string) bool { return slices.Contains(m.Rules, id) }) {
			out = append(out, s)
		}
	}
	return out
}

// TestAppCatalogue: every mutant of the app catalogue names client rules
// a spec of an app run checks, and every MUST client rule a spec can
// check has a mutant.
func TestAppCatalogue(t *testing.T) {
	ms, err := mutant.AppCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, m := range ms {
		for _, id := range m.Rules {
			if !rules.IsClientRule(id) {
				t.Errorf("mutant %s: %s is not a client rule", m.ID, id)
			}
			covered[id] = true
		}
		if len(appCatchers(m)) == 0 {
			t.Errorf("mutant %s: no spec of an app run checks %v", m.ID, m.Rules)
		}
	}
	for _, r := range rules.ClientRules() {
		if _, unobservable := rules.Uncheckable[r.ID]; r.Level == rules.MUST && !unobservable && !covered[r.ID] {
			t.Errorf("MUST client rule %s has no mutant", r.ID)
		}
	}
}

// writeAppFaultsDoc writes the app catalogue's part of FAULTS.md.
func writeAppFaultsDoc(w io.Writer, ms []mutant.Mutant) {
	fmt.Fprint(w, `
# The app client's mutants

Generated from internal/mutant/appclient.yaml. Each is a small edit of the reference app client
(appclient/), built as its own cmd/lmp-appclient; the self-test (TestAppSelfTest) runs
`+"`lmp-check app --pairing-file`"+` against it, narrowed to the mutant's rules, and requires a
failing MUST spec of one of them (a failing SHOULD spec under --strict for the mutants that say so).
The pristine client must pass every spec.

| mutant | breaks | the faulty app | edits | specs that must catch it |
|---|---|---|---|---|
`)
	for _, m := range ms {
		var names, files []string
		for _, s := range appCatchers(m) {
			names = append(names, fmt.Sprintf("%s [%s] %s", s.Level, strings.Join(s.Rules, ","), s.Text))
		}
		for _, e := range m.Edits {
			if !slices.Contains(files, e.File) {
				files = append(files, e.File)
			}
		}
		does := m.Does
		if m.StrictOnly != "" {
			does += " (caught under --strict only: " + m.StrictOnly + ")"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", m.ID, strings.Join(m.Rules, ", "), mdEscape(does),
			strings.Join(files, "<br>"), mdEscape(orDash(strings.Join(names, "<br>"))))
	}
}
