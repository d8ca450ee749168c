package check

import (
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
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
