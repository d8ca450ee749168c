package selftest

import (
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/mutant"
)

// TestJudge checks the verdicts on hand-made reports: only a failure of a
// spec carrying the broken rule counts as caught, and by default only a
// MUST spec's.
func TestJudge(t *testing.T) {
	m := mutant.Mutant{ID: "x", Rules: []string{"P-4"}, Sections: []string{"pairing"}}
	spec := func(verdict check.Verdict, level string, rules ...string) check.JSONSpec {
		return check.JSONSpec{Text: "t", Rules: rules, Level: level, Verdict: string(verdict)}
	}
	cases := []struct {
		name  string
		exit  int
		specs []check.JSONSpec
		want  string
	}{
		{"right rule", 1, []check.JSONSpec{spec(check.Pass, "MUST", "P-5"), spec(check.Fail, "MUST", "P-4", "P-6")}, Caught},
		{"other rule only", 1, []check.JSONSpec{spec(check.Fail, "MUST", "P-5"), spec(check.Pass, "MUST", "P-4")}, WrongRule},
		{"skipped is not failed", 1, []check.JSONSpec{spec(check.Skipped, "MUST", "P-4"), spec(check.Fail, "MUST", "T-2")}, WrongRule},
		{"SHOULD only", 0, []check.JSONSpec{spec(check.NonStrict, "SHOULD", "P-4")}, StrictOnly},
		{"SHOULD of the rule, MUST of another", 1, []check.JSONSpec{spec(check.NonStrict, "SHOULD", "P-4"), spec(check.Fail, "MUST", "T-2")}, WrongRule},
		{"passed", 0, []check.JSONSpec{spec(check.Pass, "MUST", "P-4")}, Missed},
		{"usage error", 2, nil, Broken},
	}
	for _, c := range cases {
		r := judge(m, outcome{exit: c.exit, report: check.JSONReport{Specs: c.specs}})
		if r.verdict != c.want {
			t.Errorf("%s: verdict %s, want %s (%s)", c.name, r.verdict, c.want, r.problem)
		}
	}

	// A panic of the in-process server ends lmp-check with a panic's exit
	// status 2, after its report: a failed run when the panic is in
	// server/, lmp-check's own trouble otherwise.
	crash := "Result: NOT CONFORMANT\npanic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 1 [running]:\n" +
		"github.com/loomi-lmp/lmpkit/server.(*event).appendTo(0x0)\n\t/src/server/event.go:133 +0x9e\n"
	failed := []check.JSONSpec{spec(check.Fail, "MUST", "P-4")}
	for _, c := range []struct {
		name, output, want string
	}{
		{"server panic after a failing spec", crash, Caught},
		{"lmp-check's own panic", strings.ReplaceAll(crash, "lmpkit/server", "lmpkit/check"), Broken},
	} {
		r := judge(m, outcome{exit: 2, output: c.output, report: check.JSONReport{Specs: failed}})
		if r.verdict != c.want {
			t.Errorf("%s: verdict %s, want %s (%s)", c.name, r.verdict, c.want, r.problem)
		}
	}
}
