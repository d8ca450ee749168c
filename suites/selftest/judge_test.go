package selftest

import (
	"testing"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/fault"
)

// TestJudge checks the verdicts on hand-made reports: only a failure of a
// spec carrying the broken rule counts as caught.
func TestJudge(t *testing.T) {
	f := fault.Fault{Name: "x", Rules: []string{"P-4"}, Sections: []string{"pairing"}}
	spec := func(verdict string, rules ...string) check.JSONSpec {
		return check.JSONSpec{Text: "t", Rules: rules, Level: "MUST", Verdict: verdict}
	}
	cases := []struct {
		name  string
		exit  int
		specs []check.JSONSpec
		want  string
	}{
		{"right rule", 1, []check.JSONSpec{spec("pass", "P-5"), spec("fail", "P-4", "P-6")}, Caught},
		{"other rule only", 1, []check.JSONSpec{spec("fail", "P-5"), spec("pass", "P-4")}, WrongRule},
		{"skipped is not failed", 1, []check.JSONSpec{spec("skipped", "P-4"), spec("fail", "T-2")}, WrongRule},
		{"passed", 0, []check.JSONSpec{spec("pass", "P-4")}, Missed},
		{"usage error", 2, nil, Broken},
	}
	for _, c := range cases {
		r := judge(f, outcome{exit: c.exit, report: check.JSONReport{Specs: c.specs}})
		if r.verdict != c.want {
			t.Errorf("%s: verdict %s, want %s (%s)", c.name, r.verdict, c.want, r.problem)
		}
	}
}
