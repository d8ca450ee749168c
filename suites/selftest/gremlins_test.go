package selftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/mutant"
)

// TestSecondOpinion runs lmp-check, as the oracle, against mutants that an
// off-the-shelf tool (gremlins) finds in server/, outside CI: it runs only
// when LMP_GREMLINS names gremlins' dry-run report (gremlins unleash
// --dry-run -o FILE ./server) and writes its findings to
// LMP_GREMLINS_OUT as Markdown (docs/selftest.md quotes them).
// LMP_GREMLINS_EVERY takes every n-th mutation point (default 1: all);
// LMP_GREMLINS_ONLY, a comma-separated list of file:line:column, takes
// those points instead; LMP_GREMLINS_RUNS is how many lmp-check runs go at once (default
// maxRuns), for a machine that others share; LMP_GREMLINS_STRICT=1 runs
// lmp-check with --strict (a failing SHOULD spec kills too), without the
// timing profile's spec (the in-process server's short timings deviate
// from the spec's by design). The clean server is checked the same way
// first: a verdict means something only if it passes.
func TestSecondOpinion(t *testing.T) {
	report := os.Getenv("LMP_GREMLINS")
	if report == "" {
		t.Skip("set LMP_GREMLINS to a gremlins dry-run report to get the second opinion")
	}
	points, err := gremlinsPoints(report)
	if err != nil {
		t.Fatal(err)
	}
	every, err := envCount("LMP_GREMLINS_EVERY", 1)
	if err != nil {
		t.Fatal(err)
	}
	parallel, err := envCount("LMP_GREMLINS_RUNS", maxRuns)
	if err != nil {
		t.Fatal(err)
	}
	only := strings.Split(os.Getenv("LMP_GREMLINS_ONLY"), ",")
	var sample []gremlin
	for i, p := range points {
		at := fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
		if only[0] == "" && i%every == 0 || slices.Contains(only, at) {
			sample = append(sample, p)
		}
	}
	var args []string
	if os.Getenv("LMP_GREMLINS_STRICT") == "1" {
		args = append(args, "--strict", "--label-filter", "!section:timing")
	}
	start := time.Now()
	pristine(t, args)
	verdicts := make([]gremlinVerdict, len(sample))
	builds, runs := make(chan struct{}, min(maxBuilds, parallel)), make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, g := range sample {
		wg.Add(1)
		go func() {
			defer wg.Done()
			verdicts[i] = g.check(t.TempDir(), builds, runs, args...)
			t.Logf("%s:%d:%d %s: %s", g.File, g.Line, g.Column, g.Type, verdicts[i])
		}()
	}
	wg.Wait()
	mode := "lmp-check's default mode"
	if len(args) > 0 {
		mode = "lmp-check " + strings.Join(args, " ")
	}
	out := secondOpinion(points, sample, verdicts, every, parallel, mode, time.Since(start))
	t.Log(out)
	if path := os.Getenv("LMP_GREMLINS_OUT"); path != "" {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pristine fails the test unless lmp-check, run with args, passes the
// clean reference server.
func pristine(t *testing.T, args []string) {
	bin, err := buildOverlay("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o, err := runCheck(bin, args...)
	if err != nil || o.exit != check.ExitConformant {
		t.Fatalf("lmp-check %v fails the clean server (exit %d, %v): %s\n%s", args, o.exit, err, strings.Join(failedOnTheirOwn(o.report), "; "), tail(o.output))
	}
}

// envCount reads a whole number from 1 from the environment variable name.
func envCount(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a whole number from 1", name, v)
	}
	return n, nil
}

// The kinds of a gremlin's verdict. A mutant is killed when lmp-check fails
// the run: a failing MUST spec (exit 1), also when the run hung and the
// specs lmp-check reported before the bound failed on their own deadlines,
// or when the mutated server crashed or did not start (lmp-check exits 2,
// which a CI job counts as a failure too). An error is the harness's or
// lmp-check's own: a run that hung without a failing spec, or an exit
// that no server explains.
const (
	killed    = "killed"
	lived     = "lived"
	notViable = "not viable"
	harnessed = "error"
)

// gremlinVerdict is what lmp-check made of one mutation point.
type gremlinVerdict struct {
	kind   string
	detail string // how it was killed, when not by a plain failing run; the error
}

func (v gremlinVerdict) String() string {
	if v.detail == "" {
		return v.kind
	}
	return v.kind + ": " + v.detail
}

// secondOpinion renders the score, the counts by mutator and the table of
// the points with their verdicts, as Markdown.
func secondOpinion(points, sample []gremlin, verdicts []gremlinVerdict, every, parallel int, mode string, wall time.Duration) string {
	kinds := []string{killed, lived, notViable, harnessed}
	counts := map[string]int{}
	byType := map[string]map[string]int{}
	var types []string
	var rows bytes.Buffer
	for i, g := range sample {
		v := verdicts[i]
		counts[v.kind]++
		if byType[g.Type] == nil {
			byType[g.Type] = map[string]int{}
			types = append(types, g.Type)
		}
		byType[g.Type][v.kind]++
		fmt.Fprintf(&rows, "| `%s:%d:%d` %s | %s |\n", g.File, g.Line, g.Column, g.Type, v)
	}
	slices.Sort(types)
	var out bytes.Buffer
	k, l := counts[killed], counts[lived]
	fmt.Fprintf(&out, "%d mutation points of %d sampled (every %d-th), %s, %d runs at a time, %s of wall time; %d killed, %d lived, %d not viable (do not compile), %d errors; score %.1f %% (killed of killed and lived)\n\n",
		len(sample), len(points), every, mode, parallel, wall.Round(time.Second), k, l, counts[notViable], counts[harnessed], 100*float64(k)/float64(max(k+l, 1)))
	fmt.Fprintf(&out, "| mutator | %s |\n|---|---|---|---|---|\n", strings.Join(kinds, " | "))
	for _, ty := range types {
		fmt.Fprintf(&out, "| %s |", ty)
		for _, kind := range kinds {
			fmt.Fprintf(&out, " %d |", byType[ty][kind])
		}
		out.WriteString("\n")
	}
	fmt.Fprintf(&out, "\n| mutation | verdict |\n|---|---|\n%s", rows.String())
	return out.String()
}

// gremlin is one mutation point of gremlins' report.
type gremlin struct {
	File   string
	Type   string
	Line   int
	Column int
}

func gremlinsPoints(path string) ([]gremlin, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep struct {
		Files []struct {
			FileName  string `json:"file_name"`
			Mutations []struct {
				Type   string `json:"type"`
				Status string `json:"status"`
				Line   int    `json:"line"`
				Column int    `json:"column"`
			} `json:"mutations"`
		} `json:"files"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []gremlin
	for _, f := range rep.Files {
		for _, m := range f.Mutations {
			out = append(out, gremlin{File: "server/" + f.FileName, Type: m.Type, Line: m.Line, Column: m.Column})
		}
	}
	slices.SortFunc(out, func(a, b gremlin) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line*1000 + a.Column - b.Line*1000 - b.Column
	})
	return out, nil
}

// swaps are the operator replacements of gremlins' mutators.
var swaps = map[string]map[string]string{
	"CONDITIONALS_NEGATION": {"==": "!=", "!=": "==", "<": ">=", ">": "<=", "<=": ">", ">=": "<"},
	"CONDITIONALS_BOUNDARY": {"<": "<=", ">": ">=", "<=": "<", ">=": ">"},
	"ARITHMETIC_BASE":       {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"},
	"INCREMENT_DECREMENT":   {"++": "--", "--": "++"},
	"INVERT_NEGATIVES":      {"-": ""},
}

// mutate applies the mutation to the source: the operator at the point's
// line and column (1-based, bytes) is swapped.
func (g gremlin) mutate(src []byte) ([]byte, error) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	if g.Line < 1 || g.Line > len(lines) {
		return nil, fmt.Errorf("line %d out of range", g.Line)
	}
	line := lines[g.Line-1]
	at := g.Column - 1
	if at < 0 || at >= len(line) {
		return nil, fmt.Errorf("column %d out of range", g.Column)
	}
	for _, width := range []int{2, 1} {
		if at+width > len(line) {
			continue
		}
		if repl, ok := swaps[g.Type][string(line[at:at+width])]; ok {
			mutated := append(append(append([]byte{}, line[:at]...), repl...), line[at+width:]...)
			lines[g.Line-1] = mutated
			return bytes.Join(lines, nil), nil
		}
	}
	return nil, fmt.Errorf("no %s operator at %d:%d", g.Type, g.Line, g.Column)
}

// check builds lmp-check with the mutation and runs every spec, in the
// default mode or with args.
func (g gremlin) check(dir string, builds, runs chan struct{}, args ...string) gremlinVerdict {
	fail := func(err error) gremlinVerdict {
		return gremlinVerdict{kind: harnessed, detail: strings.SplitN(err.Error(), "\n", 2)[0]}
	}
	src, err := os.ReadFile(filepath.Join(moduleRoot, g.File))
	if err != nil {
		return fail(err)
	}
	mutated, err := g.mutate(src)
	if err != nil {
		return fail(err)
	}
	ov, err := mutant.WriteOverlay(moduleRoot, dir, map[string][]byte{g.File: mutated})
	if err != nil {
		return fail(err)
	}
	builds <- struct{}{}
	bin, err := buildOverlay(ov, dir)
	<-builds
	if err != nil {
		return gremlinVerdict{kind: notViable}
	}
	runs <- struct{}{}
	defer func() { <-runs }()
	o, err := runCheck(bin, args...)
	return gremlinJudge(o, err)
}

// gremlinJudge gives a run's verdict (see the kinds above).
func gremlinJudge(o outcome, err error) gremlinVerdict {
	switch {
	case o.timedOut:
		failed := failedOnTheirOwn(o.report)
		if len(failed) == 0 {
			return gremlinVerdict{kind: harnessed, detail: fmt.Sprintf("lmp-check did not finish within %v, and no spec had failed on its own", runTimeout)}
		}
		return gremlinVerdict{kind: killed, detail: fmt.Sprintf("hang: %d specs failed on their own deadlines before the %v bound (first: %q)", len(failed), runTimeout, failed[0])}
	case o.exit == check.ExitUsage && err != nil:
		if crash := serverCrash(o.output); crash != "" {
			return gremlinVerdict{kind: killed, detail: "the server crashed: " + crash}
		}
		if line := grepLine(o.output, "start the in-process server"); line != "" {
			return gremlinVerdict{kind: killed, detail: "the server does not start: " + line}
		}
	case err != nil:
	case o.exit == check.ExitNotConformant:
		failed := failedOnTheirOwn(o.report)
		if len(failed) == 0 {
			return gremlinVerdict{kind: killed}
		}
		return gremlinVerdict{kind: killed, detail: fmt.Sprintf("by %q", failed[0])}
	case o.exit == check.ExitConformant:
		return gremlinVerdict{kind: lived}
	}
	if err == nil {
		err = fmt.Errorf("lmp-check exited %d", o.exit)
	}
	return gremlinVerdict{kind: harnessed, detail: strings.SplitN(err.Error(), "\n", 2)[0]}
}

// failedOnTheirOwn lists the failed specs of a report, but the one an
// interrupt ended.
func failedOnTheirOwn(r check.JSONReport) []string {
	var failed []string
	for _, s := range r.Specs {
		if s.Verdict == string(check.Fail) && !strings.HasPrefix(s.Reason, "interrupted") {
			failed = append(failed, "["+strings.Join(s.Rules, ",")+"] "+s.Text)
		}
	}
	return failed
}

// serverCrash returns the panic message of a Go panic in server/ that
// ended lmp-check (its in-process server runs in lmp-check's process), or
// "" when the output holds none: a panic elsewhere is lmp-check's own.
func serverCrash(output string) string {
	msg := grepLine(output, "panic: ")
	if msg == "" {
		msg = grepLine(output, "fatal error: ")
	}
	if msg == "" {
		return ""
	}
	_, trace, _ := strings.Cut(output, "goroutine ")
	for _, line := range strings.Split(trace, "\n") {
		if strings.Contains(line, "github.com/loomi-lmp/lmpkit/") {
			if strings.Contains(line, "github.com/loomi-lmp/lmpkit/server") {
				return msg + " (in " + strings.TrimSpace(line) + ")"
			}
			return ""
		}
	}
	return ""
}

// grepLine returns the first line of s that contains sub, trimmed.
func grepLine(s, sub string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

func TestGremlinJudge(t *testing.T) {
	report := func(specs ...check.JSONSpec) check.JSONReport {
		return check.JSONReport{Format: check.ReportFormat, Specs: specs}
	}
	failed := check.JSONSpec{Text: "pong in time", Verdict: string(check.Fail), Reason: "no frame within 5s"}
	interrupted := check.JSONSpec{Text: "replay", Verdict: string(check.Fail), Reason: "interrupted: Interrupted by User"}
	hung := errors.New("lmp-check did not finish within 4m0s")
	panicked := "lmp-check: checking …\npanic: runtime error: index out of range [3] with length 3\n\ngoroutine 7 [running]:\n" +
		"github.com/loomi-lmp/lmpkit/server.(*conn).replay(...)\n\t/x/server/replay.go:30 +0x1d\n"
	for _, c := range []struct {
		name string
		o    outcome
		err  error
		want string
	}{
		{"failing run", outcome{exit: 1, report: report(failed)}, nil, killed},
		{"passing run", outcome{exit: 0, report: report()}, nil, lived},
		{"hang with failures before the bound", outcome{exit: 1, timedOut: true, report: report(failed, interrupted)}, hung, killed},
		{"hang with only the interrupted spec failed", outcome{exit: 1, timedOut: true, report: report(interrupted)}, hung, harnessed},
		{"hang without a report", outcome{exit: -1, timedOut: true}, hung, harnessed},
		{"server panic", outcome{exit: 2, output: panicked}, errors.New("lmp-check exited 2 without a JSON report"), killed},
		{"lmp-check's own panic", outcome{exit: 2, output: strings.ReplaceAll(panicked, "lmpkit/server", "lmpkit/check")}, errors.New("lmp-check exited 2 without a JSON report"), harnessed},
		{"server does not start", outcome{exit: 2, output: "lmp-check: start the in-process server: open store: bad"}, errors.New("lmp-check exited 2 without a JSON report"), killed},
		{"usage error", outcome{exit: 2, output: "lmp-check: --profile \"x\": want short or spec"}, errors.New("lmp-check exited 2 without a JSON report"), harnessed},
	} {
		if got := gremlinJudge(c.o, c.err); got.kind != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestGremlinMutate(t *testing.T) {
	src := []byte("package p\n\nfunc f(a, b int) bool {\n\treturn a+b >= 2\n}\n")
	for _, c := range []struct {
		g    gremlin
		want string
	}{
		{gremlin{Type: "CONDITIONALS_NEGATION", Line: 4, Column: 13}, "\treturn a+b < 2\n"},
		{gremlin{Type: "CONDITIONALS_BOUNDARY", Line: 4, Column: 13}, "\treturn a+b > 2\n"},
		{gremlin{Type: "ARITHMETIC_BASE", Line: 4, Column: 10}, "\treturn a-b >= 2\n"},
	} {
		got, err := c.g.mutate(src)
		if err != nil {
			t.Fatal(err)
		}
		if line := strings.SplitAfter(string(got), "\n")[3]; line != c.want {
			t.Errorf("%s at %d:%d: %q, want %q", c.g.Type, c.g.Line, c.g.Column, line, c.want)
		}
	}
	if _, err := (gremlin{Type: "ARITHMETIC_BASE", Line: 4, Column: 2}).mutate(src); err == nil {
		t.Error("a point without its operator was mutated")
	}
}
