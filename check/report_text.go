package check

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Meta describes a run for the reports.
type Meta struct {
	Target string
	// Subject is what the run judged: "" or "server" for a server, and
	// SubjectApp for an app (lmp-check app).
	Subject  string
	Profile  string
	Strict   bool
	Started  string // RFC 3339
	Duration float64
	// Devices says what became of the devices the run paired.
	Devices string
	// Color colours the verdicts of the text summary (a terminal that
	// allows it).
	Color bool
}

// WriteText writes the readable summary: specs grouped by section with
// their rule IDs and verdicts, then failure details with transcripts, then
// counts and coverage.
func WriteText(w io.Writer, meta Meta, results []Result, sum Summary, verbose bool) {
	if meta.Subject == SubjectApp {
		fmt.Fprintf(w, "lmp-check app: the app paired at %s\n  timing profile: %s\n", meta.Target, meta.Profile)
	} else {
		fmt.Fprintf(w, "lmp-check: %s\n  timing profile: %s\n", meta.Target, meta.Profile)
	}
	if meta.Strict {
		fmt.Fprintln(w, "  strict: SHOULD failures count (INFO observations never do)")
	}
	for _, section := range sections(results) {
		var lines []string
		for _, r := range results {
			if r.Section != section {
				continue
			}
			if r.Verdict == Skipped && !verbose && r.Reason == "not selected" {
				continue
			}
			line := fmt.Sprintf("  %s %-14s %-6s %s", paint(meta.Color, r.Verdict, fmt.Sprintf("%-16s", strings.ToUpper(string(r.Verdict)))), "["+strings.Join(r.Rules, ",")+"]", r.Level, r.Text)
			if r.Verdict == Skipped || r.Verdict == ExpectedFailure {
				line += "  (" + firstLine(r.Reason) + ")"
			}
			lines = append(lines, line)
		}
		if len(lines) == 0 {
			continue // nothing of this section was selected
		}
		fmt.Fprintf(w, "\n%s\n%s\n", section, strings.Join(lines, "\n"))
	}
	var failed []Result
	for _, r := range results {
		if r.Verdict == Fail || r.Verdict == NonStrict || r.Verdict == Observed || r.Verdict == UnexpectedPass {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\nDetails\n")
	}
	for _, r := range failed {
		fmt.Fprintf(w, "\n--- %s %s  (%s, %s)\n", paint(meta.Color, r.Verdict, strings.ToUpper(string(r.Verdict))), r.ID(), r.Level, r.Section)
		fmt.Fprintln(w, indent(r.Reason, "    "))
		if r.Location != "" {
			fmt.Fprintf(w, "    at %s\n", r.Location)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "    %s: %s\n", n.Name, firstLine(n.Text))
		}
		for _, t := range r.Transcripts {
			fmt.Fprintf(w, "    transcript of %s:\n%s", t.Name, indent(t.Text, "      "))
			if !strings.HasSuffix(t.Text, "\n") {
				fmt.Fprintln(w)
			}
		}
	}
	fmt.Fprintf(w, "\nVerdicts:")
	for i, v := range Verdicts {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %d %s", sep, sum.Counts[v], v)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Rules: %d of %d checked", len(sum.RulesChecked), sum.RulesTotal)
	if len(sum.RulesSkipped) > 0 {
		fmt.Fprintf(w, "; %d skipped (%s)", len(sum.RulesSkipped), strings.Join(sum.RulesSkipped, " "))
	}
	fmt.Fprintf(w, "; %d not checkable from outside (%s, see suites/MATRIX.md)\n", len(sum.RulesUncheckable), strings.Join(sum.RulesUncheckable, " "))
	// An app run has no event source: the judge is the server.
	if by := rulesBySource(sum); len(by) > 0 && meta.Subject != SubjectApp {
		fmt.Fprintf(w, "  event sources:")
		for i, src := range sortedKeys(by) {
			sep := ";"
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %s %s", sep, src, strings.Join(by[src], " "))
		}
		fmt.Fprintln(w)
	}
	// Why each rule was not checked, rules grouped by the same reasons.
	byWhy := map[string][]string{}
	for _, id := range sum.RulesSkipped {
		key := strings.Join(sum.RuleSkipReasons[id], "; ")
		byWhy[key] = append(byWhy[key], id)
	}
	for _, reason := range sortedKeys(byWhy) {
		fmt.Fprintf(w, "  not checked, %s: %s\n", reason, strings.Join(byWhy[reason], " "))
	}
	for _, reason := range sortedKeys(sum.SkipReasons) {
		if reason == "not selected" && !verbose {
			continue
		}
		fmt.Fprintf(w, "  %d specs skipped: %s\n", sum.SkipReasons[reason], reason)
	}
	if meta.Devices != "" {
		fmt.Fprintf(w, "Devices: %s\n", meta.Devices)
	}
	fmt.Fprintf(w, "Time: %.1fs\n", meta.Duration)
	if sum.Conformant {
		fmt.Fprintln(w, "Result: "+paint(meta.Color, Pass, "CONFORMANT"))
	} else {
		fmt.Fprintln(w, "Result: "+paint(meta.Color, Fail, "NOT CONFORMANT"))
	}
}

// verdictColor is the ANSI colour of each verdict on a terminal.
var verdictColor = map[Verdict]string{
	Pass: "32", Fail: "1;31", UnexpectedPass: "1;31", NonStrict: "33", ExpectedFailure: "33", Skipped: "2", Observed: "36",
}

// paint colours s as verdict v when on.
func paint(on bool, v Verdict, s string) string {
	if !on {
		return s
	}
	return "\x1b[" + verdictColor[v] + "m" + s + "\x1b[0m"
}

// sections returns the sections in the spec's order (§1, §2 …), others
// last; Ginkgo runs them in random order.
func sections(results []Result) []string {
	var out []string
	for _, r := range results {
		if !slices.Contains(out, r.Section) {
			out = append(out, r.Section)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return strings.Compare(sectionKey(a), sectionKey(b)) })
	return out
}

// sectionKey orders "§N title" by N, keeping the suites' own order within
// a section number; sections without a number go last.
func sectionKey(s string) string {
	if rest, ok := strings.CutPrefix(s, "§"); ok && len(rest) > 0 {
		return rest[:1] + " " + s
	}
	return "~" + s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// rulesBySource inverts Summary.RuleSources: event source → the checked
// rules whose specs ran through it, in the rule table's order.
func rulesBySource(sum Summary) map[string][]string {
	out := map[string][]string{}
	for _, id := range sum.RulesChecked {
		for _, src := range sum.RuleSources[id] {
			out[src] = append(out[src], id)
		}
	}
	return out
}
