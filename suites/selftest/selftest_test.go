package selftest

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/internal/fault"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// maxParallel bounds the servers checked at once beyond -parallel: most of
// a run is spent waiting on protocol timers, but every server and lmp-check
// process costs memory under -race.
const maxParallel = 3

// TestSelfTest runs lmp-check against the pristine reference server and
// against every fault of the catalogue, in parallel (bounded by -parallel
// and maxParallel), then prints the fault → rule → verdict table.
func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("the self-test runs lmp-check against every faulty server")
	}
	bin, err := buildCheck(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sem := make(chan struct{}, maxParallel)
	var mu sync.Mutex
	var rows []row
	t.Run("servers", func(t *testing.T) {
		t.Run("pristine", func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			checkPristine(t, bin)
		})
		for _, f := range fault.Catalogue {
			t.Run(string(f.Name), func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				// --strict: some rules are checked in full only by SHOULD
				// specs (our decisions in docs/protocol.md), and the
				// timing profile's spec is not selected.
				// The row is recorded even when runCheck gives up (no
				// report, timeout): the table then shows an error, and
				// its count covers every fault that was selected.
				r := row{fault: f, verdict: Broken, problem: "lmp-check produced no usable report"}
				defer func() {
					mu.Lock()
					rows = append(rows, r)
					mu.Unlock()
				}()
				o := runCheck(t, bin, fault.Of(f.Name), "--strict", "--label-filter", sectionFilter(f.Sections))
				r = judge(f, o)
				if r.verdict != Caught {
					t.Errorf("fault %s (%s): %s\n%s", f.Name, f.Does, r.problem, tail(o.output))
				}
			})
		}
	})
	if len(rows) == 0 {
		return // every fault was filtered out by -run
	}
	slices.SortFunc(rows, func(a, b row) int { return catalogueIndex(a.fault.Name) - catalogueIndex(b.fault.Name) })
	var table strings.Builder
	writeTable(&table, rows)
	// Logged, so go test shows it with -v and whenever the self-test fails.
	t.Logf("self-test table (%v):\n%s", time.Since(start).Round(time.Second), table.String())
}

// checkPristine runs every spec against the reference server without
// faults: all must pass.
func checkPristine(t *testing.T, bin string) {
	o := runCheck(t, bin, fault.Set{})
	if o.exit != check.ExitConformant || !o.report.Conformant {
		t.Fatalf("lmp-check failed the pristine server (exit %d)\n%s", o.exit, tail(o.output))
	}
	pass := 0
	for _, s := range o.report.Specs {
		switch s.Verdict {
		case string(check.Pass):
			pass++
		case string(check.Skipped):
			// Only the timing profile's spec may skip: the short
			// profile deviates from the spec's timings on purpose.
			if !strings.HasPrefix(s.Reason, conformance.SkipTimingsDeviate) {
				t.Errorf("pristine server: spec skipped: [%s] %s: %s", strings.Join(s.Rules, ","), s.Text, s.Reason)
			}
		default:
			t.Errorf("pristine server: spec %s: [%s] %s: %s", s.Verdict, strings.Join(s.Rules, ","), s.Text, s.Reason)
		}
	}
	if pass == 0 {
		t.Fatal("pristine server: no spec ran")
	}
	// Every rule a fault breaks is one the full run checks.
	for _, f := range fault.Catalogue {
		for _, id := range f.Rules {
			if !slices.Contains(o.report.Coverage.RulesChecked, id) {
				t.Errorf("fault %s breaks %s, which no spec of the full run checks", f.Name, id)
			}
		}
	}
	t.Logf("pristine server: %d specs pass in %.1fs", pass, o.duration.Seconds())
}

func catalogueIndex(n fault.Name) int {
	return slices.IndexFunc(fault.Catalogue, func(f fault.Fault) bool { return f.Name == n })
}
