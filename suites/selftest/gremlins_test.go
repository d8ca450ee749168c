package selftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loomi-lmp/lmpkit/internal/mutant"
)

// TestSecondOpinion runs lmp-check, as the oracle, against mutants that an
// off-the-shelf tool (gremlins) finds in server/, outside CI: it runs only
// when LMP_GREMLINS names gremlins' dry-run report (gremlins unleash
// --dry-run -o FILE ./server) and writes its findings to
// LMP_GREMLINS_OUT as Markdown (docs/selftest.md quotes them).
// LMP_GREMLINS_EVERY takes every n-th mutation point (default 1: all).
func TestSecondOpinion(t *testing.T) {
	report := os.Getenv("LMP_GREMLINS")
	if report == "" {
		t.Skip("set LMP_GREMLINS to a gremlins dry-run report to get the second opinion")
	}
	points, err := gremlinsPoints(report)
	if err != nil {
		t.Fatal(err)
	}
	every := 1
	if v := os.Getenv("LMP_GREMLINS_EVERY"); v != "" {
		if _, err := fmt.Sscan(v, &every); err != nil || every < 1 {
			t.Fatalf("LMP_GREMLINS_EVERY=%q: want a whole number from 1", v)
		}
	}
	var sample []gremlin
	for i, p := range points {
		if i%every == 0 {
			sample = append(sample, p)
		}
	}
	verdicts := make([]string, len(sample))
	builds, runs := make(chan struct{}, maxBuilds), make(chan struct{}, maxRuns)
	var wg sync.WaitGroup
	for i, g := range sample {
		wg.Add(1)
		go func() {
			defer wg.Done()
			verdicts[i] = g.check(t.TempDir(), builds, runs)
		}()
	}
	wg.Wait()
	counts := map[string]int{}
	var out bytes.Buffer
	fmt.Fprintf(&out, "| mutation | verdict |\n|---|---|\n")
	for i, g := range sample {
		counts[verdicts[i]]++
		if verdicts[i] != "killed" {
			fmt.Fprintf(&out, "| `%s:%d:%d` %s | %s |\n", g.File, g.Line, g.Column, g.Type, verdicts[i])
		}
	}
	killed, lived := counts["killed"], counts["lived"]
	summary := fmt.Sprintf("%d mutation points of %d sampled (every %d-th); %d killed, %d lived, %d not viable (do not compile); score %.1f %% (killed of killed and lived)",
		len(sample), len(points), every, killed, lived, counts["not viable"], 100*float64(killed)/float64(max(killed+lived, 1)))
	t.Log(summary + "\n" + out.String())
	if path := os.Getenv("LMP_GREMLINS_OUT"); path != "" {
		if err := os.WriteFile(path, []byte(summary+"\n\n"+out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
// default mode: killed (the run failed), lived, or not viable.
func (g gremlin) check(dir string, builds, runs chan struct{}) string {
	src, err := os.ReadFile(filepath.Join(moduleRoot, g.File))
	if err != nil {
		return "error: " + err.Error()
	}
	mutated, err := g.mutate(src)
	if err != nil {
		return "error: " + err.Error()
	}
	ov, err := mutant.WriteOverlay(moduleRoot, dir, map[string][]byte{g.File: mutated})
	if err != nil {
		return "error: " + err.Error()
	}
	builds <- struct{}{}
	bin, err := buildOverlay(ov, dir)
	<-builds
	if err != nil {
		return "not viable"
	}
	runs <- struct{}{}
	defer func() { <-runs }()
	o, err := runCheck(bin)
	switch {
	case err != nil:
		return "error: " + strings.SplitN(err.Error(), "\n", 2)[0]
	case o.exit == 1:
		return "killed"
	case o.exit == 0:
		return "lived"
	}
	return fmt.Sprintf("error: exit %d", o.exit)
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
