package check

import (
	"encoding/json"
	"io"
	"slices"
)

// ReportFormat names the JSON report's format; its JSON Schema is
// schema/report/lmp-check-report.json.
const ReportFormat = "lmp-check-report/v1"

// JSONReport is the --json-report document.
type JSONReport struct {
	Format string `json:"format"`
	// Subject is what the run judged: "server", or "app" (lmp-check app,
	// the client rules).
	Subject    string         `json:"subject"`
	Target     string         `json:"target"`
	Profile    string         `json:"profile"`
	Strict     bool           `json:"strict"`
	Started    string         `json:"started"`
	DurationS  float64        `json:"duration_s"`
	Conformant bool           `json:"conformant"`
	ExitCode   int            `json:"exit_code"`
	Counts     map[string]int `json:"counts"`
	Coverage   JSONCoverage   `json:"coverage"`
	Specs      []JSONSpec     `json:"specs"`
}

// JSONCoverage says which rules the run covered.
type JSONCoverage struct {
	RulesTotal       int      `json:"rules_total"`
	RulesChecked     []string `json:"rules_checked"`
	RulesSkipped     []string `json:"rules_skipped"`
	RulesUncheckable []string `json:"rules_uncheckable"`
	// RuleSources maps each checked rule to the event sources its specs
	// ran through.
	RuleSources map[string][]string `json:"rule_sources"`
}

// JSONSpec is one spec's outcome.
type JSONSpec struct {
	Section     string       `json:"section"`
	Text        string       `json:"text"`
	Rules       []string     `json:"rules"`
	Level       string       `json:"level"`
	Verdict     string       `json:"verdict"`
	Reason      string       `json:"reason,omitempty"`
	Location    string       `json:"location,omitempty"`
	DurationS   float64      `json:"duration_s"`
	Transcripts []Transcript `json:"transcripts"`
	Notes       []Transcript `json:"notes"`
	Expectation *Expectation `json:"expectation,omitempty"`
	Source      string       `json:"source"`
	NotObserved []string     `json:"not_observed,omitempty"`
}

// WriteJSON writes the JSON report.
func WriteJSON(w io.Writer, meta Meta, results []Result, sum Summary) error {
	rep := JSONReport{
		Format: ReportFormat, Subject: subject(meta), Target: meta.Target, Profile: meta.Profile, Strict: meta.Strict,
		Started: meta.Started, DurationS: meta.Duration, Conformant: sum.Conformant, ExitCode: sum.ExitCode(),
		Counts: map[string]int{},
		Coverage: JSONCoverage{
			RulesTotal: sum.RulesTotal, RulesChecked: nonNil(sum.RulesChecked),
			RulesSkipped: nonNil(sum.RulesSkipped), RulesUncheckable: nonNil(sum.RulesUncheckable),
			RuleSources: sum.RuleSources,
		},
		Specs: []JSONSpec{},
	}
	for _, v := range Verdicts {
		rep.Counts[string(v)] = sum.Counts[v]
	}
	for _, r := range results {
		rep.Specs = append(rep.Specs, JSONSpec{
			Section: r.Section, Text: r.Text, Rules: nonNil(r.Rules), Level: string(r.Level),
			Verdict: string(r.Verdict), Reason: r.Reason, Location: r.Location,
			DurationS: r.Duration.Seconds(), Transcripts: nonNilT(r.Transcripts), Notes: nonNilT(r.Notes),
			Expectation: r.Expectation, Source: r.Source, NotObserved: r.NotObserved,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

func nonNilT(s []Transcript) []Transcript {
	if s == nil {
		return []Transcript{}
	}
	return s
}

func subject(meta Meta) string {
	if meta.Subject == "" {
		return "server"
	}
	return meta.Subject
}
