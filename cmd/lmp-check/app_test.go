package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/browsertest"
	"github.com/loomi-lmp/lmpkit/internal/mutant"
)

// TestAppUsageErrors: `lmp-check app` refuses, with exit code 2 and a
// line naming the problem, plaintext on the network without the opt-in
// (S-3, as lmp-server), a bad label filter, a selection that matches no
// spec (naming lmp-check when it selects a server run's specs) and a
// pairing file it cannot write, before any app is awaited.
func TestAppUsageErrors(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"app", "--listen", "0.0.0.0:0"}, "refusing to listen on 0.0.0.0:0"},
		{[]string{"app", "--listen", "127.0.0.1:0", "--label-filter", "C-3 &&"}, "--label-filter"},
		{[]string{"app", "--listen", "127.0.0.1:0", "--focus", "no such spec"}, "matches no spec"},
		{[]string{"app", "--listen", "127.0.0.1:0", "--label-filter", "T-2"}, "matches no spec of an app run, but 3 of a server run: run lmp-check"},
		{[]string{"app", "--listen", "127.0.0.1:0", "--pairing-file", filepath.Join(t.TempDir(), "missing", "p.json")}, "pairing file"},
		{[]string{"app", "stray"}, "unexpected arguments"},
	} {
		code, out, errOut := runBinary(t, bin, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q (want 2 and %q)\n%s", c.args, code, errOut, c.want, out)
		}
	}
}

// startAppClient starts the app client bin (cmd/lmp-appclient, the
// reference or a faulty one), pairing from the file pairing as a test
// harness does; it is stopped when the test ends.
func startAppClient(t *testing.T, bin, pairing string) {
	t.Helper()
	dir := t.TempDir()
	app := exec.Command(bin, "--pairing-file", pairing, "--state-file", filepath.Join(dir, "state.json"), "--reconnect-delay", "50ms")
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = app.Process.Kill() // the client this test started
		_ = app.Wait()
	})
}

// runApp runs `lmp-check app` (the binary bin) against a new process of
// the app client clientBin, with args after the judge's own.
func runApp(t *testing.T, bin, clientBin string, args ...string) (int, string, string) {
	t.Helper()
	pairing := filepath.Join(t.TempDir(), "pairing.json")
	startAppClient(t, clientBin, pairing)
	return runBinary(t, bin, append([]string{"app", "--listen", "127.0.0.1:0", "--pairing-file", pairing,
		"--pair-timeout", "60s", "--action-timeout", "10s", "--reconnect-timeout", "10s", "--quiet", "1s"}, args...)...)
}

// TestAppRunReports runs `lmp-check app` against a faulty app client
// that never answers a ping (the self-test's app-no-pong), narrowed to
// the heartbeat and replay rules (C-3, C-5), with an expectations file
// that lists one passing C-5 spec as failing: the run fails on C-3 and on
// that unexpected pass. Then, on its reports:
//   - its HTML report, read in Chromium, shows what its JSON report says
//     (checkHTMLReport, as for a server run);
//   - --rerun-failed with its JSON report judges exactly the specs that
//     failed, and --expect turns the C-3 failures into expected ones: exit
//     0;
//   - a server run refuses an app run's report, and an app run a server
//     run's, naming the command that reruns it.
func TestAppRunReports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs lmp-check app against an app client process")
	}
	m, err := mutant.AppMutant("app-no-pong")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	clientBin, err := mutant.BuildAppClient(&m, filepath.Join("..", ".."), dir)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	first, htmlRep, again := filepath.Join(dir, "first.json"), filepath.Join(dir, "first.html"), filepath.Join(dir, "again.json")
	unexpected, expectC3 := filepath.Join(dir, "unexpected.yaml"), filepath.Join(dir, "c3.yaml")
	if err := os.WriteFile(unexpected, []byte("expectations:\n  - spec: \"a replay that re-sends seqs\"\n    reason: pretend the app counts replays wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(expectC3, []byte("expectations:\n  - rule: C-3\n    reason: the app does not answer pings\n    link: https://example.org/issues/3\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// A missing pong fails after --pong-timeout: 3 s, not the spec's 10.
	quick := []string{"--pong-timeout", "3s", "--burst", "100"}
	code, stdout, stderr := runApp(t, bin, clientBin, append(quick, "--label-filter", "C-3 || C-5", "--expect", unexpected, "--json-report", first, "--html-report", htmlRep)...)
	if code != 1 {
		t.Fatalf("first run: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	rep := readReport(t, first)
	sel1, failed1 := ran(rep)
	var failedRules []string
	for _, s := range rep.Specs {
		if s.Verdict == "fail" {
			failedRules = append(failedRules, s.Rules...)
		}
	}
	if rep.Subject != check.SubjectApp || rep.Counts["unexpected-pass"] != 1 || rep.Counts["pass"] == 0 ||
		len(failedRules) == 0 || slices.ContainsFunc(failedRules, func(id string) bool { return id != "C-3" }) || len(sel1) <= len(failed1) {
		t.Fatalf("not the run this test means: subject %q, counts %v, failed rules %v\n%s", rep.Subject, rep.Counts, failedRules, stdout)
	}

	t.Run("html report in Chromium", func(t *testing.T) {
		ctx := browsertest.New(t, 1200, 900, 60*time.Second)
		checkHTMLReport(t, ctx, htmlRep, rep, "C-3", "Not conformant")
	})

	t.Run("rerun failed", func(t *testing.T) {
		code, stdout, stderr := runApp(t, bin, clientBin, append(quick, "--rerun-failed", first, "--expect", expectC3, "--json-report", again)...)
		if code != 0 {
			t.Fatalf("rerun: exit %d, want 0 (the C-3 failures expected)\n%s%s", code, stdout, stderr)
		}
		rerun := readReport(t, again)
		sel2, _ := ran(rerun)
		if !slices.Equal(sel2, failed1) {
			t.Errorf("rerun judged %q; the first run failed %q", sel2, failed1)
		}
		for _, s := range rerun.Specs {
			if slices.Contains(s.Rules, "C-3") && s.Verdict != "expected-failure" {
				t.Errorf("[C-3] %s: %s (%s), want expected-failure", s.Text, s.Verdict, s.Reason)
			}
		}
	})

	t.Run("reports of the other run refused", func(t *testing.T) {
		code, _, stderr := runBinary(t, bin, "--rerun-failed", first)
		if code != 2 || !strings.Contains(stderr, "--rerun-failed") || !strings.Contains(stderr, "lmp-check app --rerun-failed") {
			t.Errorf("a server run given an app run's report: exit %d\n%s", code, stderr)
		}
		server := filepath.Join(t.TempDir(), "server.json")
		if err := os.WriteFile(server, []byte(`{"format":"`+check.ReportFormat+`","subject":"server","specs":[]}`), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, stderr = runBinary(t, bin, "app", "--listen", "127.0.0.1:0", "--rerun-failed", server)
		if code != 2 || !strings.Contains(stderr, "a server run") {
			t.Errorf("an app run given a server run's report: exit %d\n%s", code, stderr)
		}
	})
}

// TestListAppSpecs: lmp-check list names an app run's specs too, each
// with its rule IDs, its level and the action it needs, after a server
// run's; --subject picks one run, and the selection flags select in both.
func TestListAppSpecs(t *testing.T) {
	bin := buildBinary(t)
	app := check.AppSpecs()
	code, all, stderr := runBinary(t, bin, "list")
	if code != 0 || !strings.Contains(all, fmt.Sprintf("\n%d specs of lmp-check app\n", len(app))) || !strings.Contains(all, " specs of lmp-check\n") {
		t.Fatalf("lmp-check list: exit %d, no count of both runs\n%s%s", code, all, stderr)
	}
	for _, s := range app {
		line := fmt.Sprintf("%-14s %-6s %s", "["+strings.Join(s.Rules, ",")+"]", s.Level, s.Text)
		if !strings.Contains(all, line) {
			t.Errorf("lmp-check list lacks %q", line)
		}
	}
	if !strings.Contains(all, "(needs the app to act: resolve)") {
		t.Errorf("lmp-check list does not say which app specs need an action:\n%s", all)
	}
	code, only, _ := runBinary(t, bin, "list", "--subject", "app", "--label-filter", "C-3")
	if code != 0 || strings.Contains(only, "specs of lmp-check\n") || !strings.Contains(only, "\n2 specs of lmp-check app\n") || strings.Contains(only, "[C-5]") {
		t.Errorf("lmp-check list --subject app --label-filter C-3: exit %d\n%s", code, only)
	}
	code, _, stderr = runBinary(t, bin, "list", "--subject", "phone")
	if code != 2 || !strings.Contains(stderr, `--subject "phone"`) {
		t.Errorf("lmp-check list --subject phone: exit %d\n%s", code, stderr)
	}
}
