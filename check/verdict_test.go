package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/loomi-lmp/lmpkit/suites/conformance"

	"github.com/loomi-lmp/lmpkit/suites/rules"
)

func spec(section, text string, state types.SpecState, msg string, labels ...string) types.SpecReport {
	return types.SpecReport{
		ContainerHierarchyTexts: []string{section}, LeafNodeType: types.NodeTypeIt,
		LeafNodeText: text, LeafNodeLabels: labels, State: state,
		Failure: types.Failure{Message: msg}, RunTime: time.Second,
	}
}

func TestResultsMapVerdicts(t *testing.T) {
	rep := types.Report{SpecReports: types.SpecReports{
		spec("§1 Transport", "[T-2] health", types.SpecStatePassed, "", "MUST", "T-2"),
		spec("§1 Transport", "[T-4] ping", types.SpecStateFailed, "late", "MUST", "T-4"),
		spec("§1 Transport", "[T-3] binary", types.SpecStateFailed, "no 1003", "SHOULD", "T-3"),
		spec("§1 Transport", "[T-5] misses", types.SpecStateSkipped, "needs --driver-url", "MUST", "T-5", "driver"),
		spec("§1 Transport", "[T-6] client ping", types.SpecStateTimedout, "timeout", "MUST", "T-6"),
		{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed},
	}}
	want := map[string]Verdict{"health": Pass, "ping": Fail, "binary": NonStrict, "misses": Skipped, "client ping": Fail}
	res := Results(rep, false, nil)
	if len(res) != len(want) {
		t.Fatalf("got %d results, want %d", len(res), len(want))
	}
	for _, r := range res {
		if r.Verdict != want[r.Text] {
			t.Errorf("%q: verdict %s, want %s", r.Text, r.Verdict, want[r.Text])
		}
	}
	if res[3].Reason != "needs --driver-url" || res[3].Rules[0] != "T-5" {
		t.Errorf("skip: %+v", res[3])
	}
	sum := Summarize(res)
	if sum.Conformant || sum.ExitCode() != ExitNotConformant {
		t.Errorf("a MUST failure must make the run not conformant: %+v", sum)
	}

	// Under --strict the SHOULD failure fails too.
	strict := Results(rep, true, nil)
	if strict[2].Verdict != Fail {
		t.Errorf("strict SHOULD failure: %s", strict[2].Verdict)
	}

	// Only a SHOULD failure: conformant without --strict.
	soft := types.Report{SpecReports: types.SpecReports{rep.SpecReports[0], rep.SpecReports[2]}}
	if s := Summarize(Results(soft, false, nil)); !s.Conformant || s.ExitCode() != ExitConformant {
		t.Errorf("non-strict failure must not fail the run: %+v", s)
	}
	if s := Summarize(Results(soft, true, nil)); s.Conformant {
		t.Error("under --strict a SHOULD failure must fail the run")
	}
}

// An INFO spec that fails is an observation: it fails no run, strict or
// not, and no expectation turns its pass into an unexpected pass (note 21).
func TestInfoFailsNothing(t *testing.T) {
	rep := types.Report{SpecReports: types.SpecReports{
		spec("§3 Pairing", "[P-4] invalid_token", types.SpecStateFailed, "code: want \"invalid_token\", got \"E_TOKEN\"", "INFO", "P-4"),
		spec("§3 Pairing", "[P-5] close 1008", types.SpecStatePassed, "", "INFO", "P-5"),
	}}
	exp := &Expectations{Entries: []Expectation{{Rule: "P-5", Reason: "known"}}}
	for _, strict := range []bool{false, true} {
		res := Results(rep, strict, exp)
		if res[0].Verdict != Observed || res[1].Verdict != Pass {
			t.Errorf("strict=%v: verdicts %s, %s; want observed, pass", strict, res[0].Verdict, res[1].Verdict)
		}
		if s := Summarize(res); !s.Conformant {
			t.Errorf("strict=%v: an INFO observation failed the run", strict)
		}
	}
}

func TestExpectations(t *testing.T) {
	exp, err := ParseExpectations("x.yaml", []byte(`
expectations:
  - rule: T-4
    reason: pings every 30 s
    link: https://example.org/1
  - spec: health
    reason: wrong body
`))
	if err != nil {
		t.Fatal(err)
	}
	rep := types.Report{SpecReports: types.SpecReports{
		spec("§1", "[T-4] ping", types.SpecStateFailed, "late", "MUST", "T-4"),
		spec("§1", "[T-2] health", types.SpecStatePassed, "", "MUST", "T-2"),
	}}
	res := Results(rep, false, exp)
	if res[0].Verdict != ExpectedFailure || res[0].Expectation.Link != "https://example.org/1" {
		t.Errorf("listed failure: %+v", res[0])
	}
	if res[1].Verdict != UnexpectedPass {
		t.Errorf("listed pass: %s", res[1].Verdict)
	}
	if Summarize(res[:1]).ExitCode() != ExitConformant {
		t.Error("an expected failure must not fail the run")
	}
	if Summarize(res).ExitCode() != ExitNotConformant {
		t.Error("an unexpected pass must fail the run")
	}

	for name, bad := range map[string]string{
		"both":    "expectations:\n  - {rule: T-4, spec: x, reason: r}\n",
		"neither": "expectations:\n  - {reason: r}\n",
		"unknown": "expectations:\n  - {rule: Z-9, reason: r}\n",
		"reason":  "expectations:\n  - {rule: T-4}\n",
		"field":   "expectations:\n  - {rule: T-4, reason: r, typo: 1}\n",
	} {
		if _, err := ParseExpectations(name, []byte(bad)); err == nil {
			t.Errorf("%s: accepted %q", name, bad)
		}
	}
	if e, err := ParseExpectations("empty", nil); err != nil || len(e.Entries) != 0 {
		t.Errorf("empty file: %v", err)
	}
}

func withEntries(s types.SpecReport, kv ...any) types.SpecReport {
	for i := 0; i+1 < len(kv); i += 2 {
		s.ReportEntries = append(s.ReportEntries, types.ReportEntry{Name: kv[i].(string), Value: types.WrapEntryValue(kv[i+1])})
	}
	return s
}

// TestCoverageCountsOnlyObservedRules: a rule counts as checked only when
// a spec that ran observed it, and each checked rule names the event
// sources its specs ran through.
func TestCoverageCountsOnlyObservedRules(t *testing.T) {
	rep := types.Report{SpecReports: types.SpecReports{
		withEntries(spec("Timing profile", "[T-4,E-5] profile", types.SpecStatePassed, "", "INFO", "T-4", "E-5"),
			"not observed", conformance.NotObservedEntry{Rules: []string{"T-4", "E-5"}, Why: "compares the declared profile"}),
		withEntries(spec("§2 Replay", "[E-2] replay", types.SpecStatePassed, "", "MUST", "E-2", "events"), "event source", conformance.SourceTriggers),
		withEntries(spec("§3", "[M-2,H-3] race", types.SpecStatePassed, "", "MUST", "M-2", "H-3", "events"),
			"event source", conformance.SourceTriggers, "not observed", conformance.NotObservedEntry{Rules: []string{"H-3"}, Why: "no driver"}),
		withEntries(spec("§7", "[H-1] hooks", types.SpecStatePassed, "", "MUST", "H-1", "driver"), "event source", conformance.SourceDriver),
		spec("§1", "[T-2] health", types.SpecStatePassed, "", "MUST", "T-2"),
	}}
	res := Results(rep, false, nil)
	sum := Summarize(res)
	want := []string{"T-2", "E-2", "M-2", "H-1"}
	if fmt.Sprint(sum.RulesChecked) != fmt.Sprint(sortByTable(want)) {
		t.Errorf("checked %v, want %v", sum.RulesChecked, sortByTable(want))
	}
	for _, id := range []string{"T-4", "E-5", "H-3"} {
		if !slices.Contains(sum.RulesSkipped, id) {
			t.Errorf("%s is not among the rules no spec observed: %v", id, sum.RulesSkipped)
		}
	}
	for id, src := range map[string]string{"T-2": "none", "E-2": "triggers", "M-2": "triggers", "H-1": "driver"} {
		if got := sum.RuleSources[id]; len(got) != 1 || got[0] != src {
			t.Errorf("%s ran through %v, want %s", id, got, src)
		}
	}
	if got := sum.RuleSkipReasons["H-3"]; len(got) != 1 || got[0] != "not observed: no driver" {
		t.Errorf("why H-3 was not checked: %v", got)
	}
	var out strings.Builder
	WriteText(&out, Meta{Target: "ws://x/ws"}, res, sum, false)
	for _, want := range []string{
		"event sources: driver H-1; none T-2; triggers E-2 M-2",
		"not checked, not observed: compares the declared profile: T-4 E-5",
		"not checked, not observed: no driver: H-3",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func sortByTable(ids []string) []string {
	var out []string
	for _, r := range rules.Table {
		if slices.Contains(ids, r.ID) {
			out = append(out, r.ID)
		}
	}
	return out
}

func TestTextSummaryLeavesOutEmptySections(t *testing.T) {
	rep := types.Report{SpecReports: types.SpecReports{
		spec("§1 Transport", "[T-2] health", types.SpecStatePassed, "", "MUST", "T-2"),
		spec("§4 Run lifecycle", "[F-4] failed", types.SpecStateSkipped, "", "MUST", "F-4"),
	}}
	res := Results(rep, false, nil)
	var out strings.Builder
	WriteText(&out, Meta{Target: "ws://x/ws"}, res, Summarize(res), false)
	if !strings.Contains(out.String(), "§1 Transport") || strings.Contains(out.String(), "§4 Run lifecycle") {
		t.Errorf("a section with nothing selected is shown, or one with results is not:\n%s", out.String())
	}
	out.Reset()
	WriteText(&out, Meta{Target: "ws://x/ws"}, res, Summarize(res), true)
	if !strings.Contains(out.String(), "§4 Run lifecycle") {
		t.Errorf("-v lists unselected specs with their section:\n%s", out.String())
	}
}
