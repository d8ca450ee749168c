// Package check is the lmp-check runner: it turns a target description
// into a conformance run of package suites, maps each spec's outcome to a
// verdict (pass, fail, non-strict, observed, skipped, expected failure,
// unexpected pass), writes readable, JUnit and JSON reports and derives the exit code.
package check

import (
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// Verdict is the outcome of one spec.
type Verdict string

// Verdicts.
const (
	Pass            Verdict = "pass"
	Fail            Verdict = "fail"
	NonStrict       Verdict = "non-strict"       // a SHOULD spec failed; fails only under --strict
	Observed        Verdict = "observed"         // an INFO spec saw another choice than the reference server's; fails nothing (note 21)
	Skipped         Verdict = "skipped"          // not run, with the reason
	ExpectedFailure Verdict = "expected-failure" // failed as the expectations file says
	UnexpectedPass  Verdict = "unexpected-pass"  // passed although the expectations file says it fails
)

// Verdicts lists every verdict in report order.
var Verdicts = []Verdict{Pass, Fail, NonStrict, Observed, Skipped, ExpectedFailure, UnexpectedPass}

// Failing reports whether v makes the run not conformant.
func (v Verdict) Failing() bool { return v == Fail || v == UnexpectedPass }

// Transcript is one connection's redacted transcript.
type Transcript struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Result is one spec's outcome.
type Result struct {
	Section     string
	Text        string // the requirement, without the rule prefix
	Rules       []string
	Level       rules.Level
	Labels      []string
	Verdict     Verdict
	Reason      string // skip reason, failure message, or expectation reason
	Location    string // where the failure happened in the suites
	Duration    time.Duration
	Transcripts []Transcript
	Notes       []Transcript // other report entries
	Expectation *Expectation
	// Source is the event source the spec ran through: driver, triggers,
	// or none (conformance.Source).
	Source string
	// NotObserved are rule IDs the spec is labelled with but did not
	// observe in this run (conformance.NotObserved): coverage leaves them
	// out.
	NotObserved []string
	// notObservedWhy maps each of NotObserved to what the spec said.
	notObservedWhy map[string]string
}

// notObservedWhy is why r did not observe rule id.
func notObservedWhy(r Result, id string) string {
	if w := r.notObservedWhy[id]; w != "" {
		return "not observed: " + w
	}
	return "not observed"
}

// ID is "[rules] text", unique enough to name a spec.
func (r Result) ID() string { return "[" + strings.Join(r.Rules, ",") + "] " + r.Text }

// specInfo reads a spec's rule IDs, level and section from its labels and
// container texts.
func specInfo(s types.SpecReport) (section, text string, ids []string, level rules.Level, labels []string) {
	labels = s.Labels()
	level = rules.MUST
	for _, l := range labels {
		switch {
		case rules.IsID(l):
			ids = append(ids, l)
		case l == string(rules.MUST) || l == string(rules.SHOULD) || l == string(rules.INFO):
			level = rules.Level(l)
		}
	}
	if len(s.ContainerHierarchyTexts) > 0 {
		section = s.ContainerHierarchyTexts[0]
	}
	text = s.LeafNodeText
	if strings.HasPrefix(text, "[") {
		if i := strings.Index(text, "] "); i > 0 {
			text = text[i+2:]
		}
	}
	return section, text, ids, level, labels
}

// Results maps a suite report to one Result per spec. Under strict,
// failures of SHOULD specs are failures; otherwise they are non-strict.
// A failed INFO spec is an observation, strict or not: our own codes and
// names are not the spec's (note 21). Expectations turn failures into expected failures and
// passes into unexpected passes.
func Results(report types.Report, strict bool, exp *Expectations) []Result {
	var out []Result
	for _, s := range report.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		section, text, ids, level, labels := specInfo(s)
		r := Result{Section: section, Text: text, Rules: ids, Level: level, Labels: labels, Duration: s.RunTime}
		switch {
		case s.State == types.SpecStatePassed:
			r.Verdict = Pass
		case s.State == types.SpecStateSkipped || s.State == types.SpecStatePending:
			r.Verdict = Skipped
			r.Reason = s.Failure.Message
			if r.Reason == "" {
				r.Reason = "not selected"
			}
		default: // failed, panicked, timed out, interrupted, aborted
			switch {
			case level == rules.INFO:
				r.Verdict = Observed
			case level == rules.SHOULD && !strict:
				r.Verdict = NonStrict
			default:
				r.Verdict = Fail
			}
			r.Reason = s.Failure.Message
			if s.State != types.SpecStateFailed {
				r.Reason = s.State.String() + ": " + r.Reason
			}
			r.Location = s.Failure.Location.String()
		}
		r.Source = string(conformance.SourceNone)
		for _, e := range s.ReportEntries {
			entry := Transcript{Name: e.Name, Text: e.StringRepresentation()}
			switch e.Name {
			case conformance.EntryEventSource:
				if src, ok := e.GetRawValue().(conformance.Source); ok {
					r.Source = string(src)
				}
			case conformance.EntryNotObserved:
				if no, ok := e.GetRawValue().(conformance.NotObservedEntry); ok {
					for _, id := range no.Rules {
						r.NotObserved = append(r.NotObserved, id)
						if r.notObservedWhy == nil {
							r.notObservedWhy = map[string]string{}
						}
						r.notObservedWhy[id] = no.Why
					}
				}
			}
			if strings.HasPrefix(e.Name, "transcript: ") {
				entry.Name = strings.TrimPrefix(e.Name, "transcript: ")
				r.Transcripts = append(r.Transcripts, entry)
			} else {
				r.Notes = append(r.Notes, entry)
			}
		}
		exp.apply(&r)
		out = append(out, r)
	}
	return out
}

// apply turns r's verdict into an expected failure, or an unexpected
// pass, when an expectation covers it. An INFO spec fails nothing, so no
// expectation covers it: its pass cannot become an unexpected pass.
func (e *Expectations) apply(r *Result) {
	if r.Level == rules.INFO {
		return
	}
	x := e.Match(*r)
	if x == nil {
		return
	}
	r.Expectation = x
	switch r.Verdict {
	case Fail, NonStrict:
		r.Verdict = ExpectedFailure
		r.Reason = "expected failure: " + x.Reason + " (" + r.Reason + ")"
	case Pass:
		r.Verdict = UnexpectedPass
		r.Reason = "passed, but the expectations file lists it as failing: " + x.Reason
	}
}

// Summary counts verdicts and rule coverage.
type Summary struct {
	Counts       map[Verdict]int
	RulesTotal   int
	RulesChecked []string // rules a spec that ran observed
	// RuleSources maps each checked rule to the event sources its specs
	// ran through (driver, triggers, none), sorted.
	RuleSources  map[string][]string
	RulesSkipped []string // rules no spec observed: each was skipped or did not observe it
	// RuleSkipReasons maps each skipped rule to why its specs did not
	// observe it (skip reasons, or what NotObserved said), sorted.
	RuleSkipReasons  map[string][]string
	RulesUncheckable []string
	SkipReasons      map[string]int // reason → specs
	Conformant       bool
}

// Summarize counts verdicts and which of the server's rules the run
// covered.
func Summarize(results []Result) Summary { return SummarizeRules(results, rules.ServerRules()) }

// SummarizeRules counts verdicts and which rules of table the run covered:
// rules.ServerRules for a server run, rules.ClientRules for an app run.
func SummarizeRules(results []Result, table []rules.Rule) Summary {
	s := Summary{Counts: map[Verdict]int{}, SkipReasons: map[string]int{}, RuleSources: map[string][]string{},
		RuleSkipReasons: map[string][]string{}, RulesTotal: len(table), Conformant: true}
	why := map[string][]string{} // rule → reasons a spec did not observe it
	addWhy := func(id, reason string) {
		if !slices.Contains(why[id], reason) {
			why[id] = append(why[id], reason)
		}
	}
	ran, skipped := map[string]bool{}, map[string]bool{}
	for _, r := range results {
		s.Counts[r.Verdict]++
		if r.Verdict.Failing() {
			s.Conformant = false
		}
		for _, id := range r.Rules {
			switch {
			case r.Verdict == Skipped && r.Reason == "not selected":
				// the run did not ask for it: neither checked nor skipped
			case r.Verdict == Skipped:
				skipped[id] = true
				addWhy(id, r.Reason)
			case slices.Contains(r.NotObserved, id):
				// labelled, but not observed this time: not coverage
				addWhy(id, notObservedWhy(r, id))
			default:
				ran[id] = true
				if !slices.Contains(s.RuleSources[id], r.Source) {
					s.RuleSources[id] = append(s.RuleSources[id], r.Source)
					slices.Sort(s.RuleSources[id])
				}
			}
		}
		if r.Verdict == Skipped {
			s.SkipReasons[r.Reason]++
		}
	}
	for _, rule := range table {
		switch {
		case ran[rule.ID]:
			s.RulesChecked = append(s.RulesChecked, rule.ID)
		case skipped[rule.ID] || notObserved(results, rule.ID):
			s.RulesSkipped = append(s.RulesSkipped, rule.ID)
			s.RuleSkipReasons[rule.ID] = why[rule.ID]
			slices.Sort(s.RuleSkipReasons[rule.ID])
		}
		if _, ok := rules.Uncheckable[rule.ID]; ok {
			s.RulesUncheckable = append(s.RulesUncheckable, rule.ID)
		}
	}
	slices.Sort(s.RulesUncheckable)
	return s
}

// Exit codes of lmp-check.
const (
	ExitConformant    = 0
	ExitNotConformant = 1
	ExitUsage         = 2 // usage error or unreachable target
)

// ExitCode is ExitConformant or ExitNotConformant for a finished run.
func (s Summary) ExitCode() int {
	if s.Conformant {
		return ExitConformant
	}
	return ExitNotConformant
}

// notObserved reports whether some spec that ran is labelled with id but
// did not observe it.
func notObserved(results []Result, id string) bool {
	for _, r := range results {
		if r.Verdict != Skipped && slices.Contains(r.NotObserved, id) {
			return true
		}
	}
	return false
}
