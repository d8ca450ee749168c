package selftest

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/check"
	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/internal/mutant"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// Mutants are built two at a time (the build cache is shared) and checked
// maxRuns at a time: a run is mostly waiting on protocol timers (a
// section's run takes 0.1-0.2 s of CPU for seconds of wall time, and eight
// runs at once kept two cores about two thirds busy), so eight runs per
// core, at most thirty-two.
const maxBuilds = 2

var maxRuns = min(8*runtime.NumCPU(), 32)

// raceEnabled is set by race_test.go (see buildCheck).
var raceEnabled bool

// result is one mutant's build and run.
type result struct {
	o   outcome
	err error
	// wire is the driverless run (--no-driver --triggers mock) of a
	// mutant caught by default; nil when there was none.
	wire    *outcome
	wireErr error
	// minimal is the run behind the minimal variant (runMinimal), made
	// when minimalExpectation asks for one; nil otherwise.
	minimal    *outcome
	minimalErr error
}

// TestSelfTest runs lmp-check, in its default mode, against the pristine
// reference server and against every mutant of the catalogue (each built
// as its own lmp-check whose in-process server is the mutated one, and run
// on the mutant's sections only), then prints the mutant → rule → verdict
// table. A mutant must be caught by a failing MUST spec of a rule it
// breaks, unless the catalogue says why only a SHOULD spec can catch it
// (then it must be caught under --strict only) or why it survives; a
// listed reason that no longer holds fails too.
func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("the self-test builds and checks every mutant")
	}
	ms, err := mutant.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	selected := selectedMutants(ms)
	addrs := client.NetworkAddresses()
	start := time.Now()

	// Build and run the selected mutants in the background, bounded;
	// the subtests below report them in catalogue order.
	results := map[string]chan result{}
	builds, runs := make(chan struct{}, maxBuilds), make(chan struct{}, maxRuns)
	// The mutants' runs wait for the pristine run: its timer specs
	// measure the clean server's pings to within their slack, which a
	// machine busy with sixteen other runs can exceed. Builds go on
	// meanwhile.
	pristineDone := make(chan struct{})
	// The pristine lmp-check that checks the mutated servers behind the
	// minimal variant, and the pristine lmp-server of the control run:
	// built once, without -race (the mutants' builds go without it too),
	// by the first that needs them.
	minimalDir := t.TempDir()
	minimalCheck := sync.OnceValues(func() (string, error) { return buildWith(nil, minimalDir, false, true) })
	var wg sync.WaitGroup
	for _, m := range selected {
		if hostLacks(m, addrs) != "" {
			continue
		}
		ch := make(chan result, 1)
		results[m.ID] = ch
		dir := t.TempDir()
		wg.Add(1)
		go func() {
			defer wg.Done()
			wantMinimal := minimalExpectation(m)
			builds <- struct{}{}
			// A mutant run behind the minimal variant is built as
			// lmp-server too, in the same build.
			bin, err := buildWith(&m, dir, false, wantMinimal != "")
			if err == nil && wantMinimal != "" {
				_, err = minimalCheck()
			}
			<-builds
			if err != nil {
				ch <- result{err: err}
				return
			}
			<-pristineDone
			runs <- struct{}{}
			defer func() { <-runs }()
			// A mutant the catalogue promises to be caught runs first the
			// specs of its sections that carry its rules: only they can
			// catch it, and the others' share of the run is saved. When
			// they do not, the whole sections run, so that the table tells
			// a wrong rule from a miss.
			filter := sectionFilter(m.Sections)
			narrow := filter
			if expected(m) == Caught {
				narrow = ruleFilter(m.Sections, m.Rules)
			}
			res := result{}
			res.o, res.err = runCheck(bin, "--label-filter", narrow)
			caught := res.err == nil && judge(m, res.o).verdict == Caught
			if !caught && narrow != filter {
				res.o, res.err = runCheck(bin, "--label-filter", filter)
				caught = res.err == nil && judge(m, res.o).verdict == Caught
			}
			checkBin, _ := minimalCheck()
			server := filepath.Join(dir, "lmp-server")
			switch {
			case caught && wantMinimal == Caught:
				// The mutated server behind the minimal variant, checked
				// without a driver: only the wire, pairing and the triggers,
				// and only what the spec defines. Caught there, it is caught
				// by a driverless run too.
				o, err := runMinimal(checkBin, server, filepath.Join(dir, "minimal"), "--label-filter", narrow)
				res.minimal, res.minimalErr = &o, err
				if minimalVerdict(m, o, err) == Caught {
					res.wire, res.wireErr = &o, err
					break
				}
				fallthrough
			case caught:
				// The same binary, its server checked as one without a
				// driver: only the wire, pairing and the triggers.
				w, err := runCheck(bin, "--no-driver", "--triggers", "mock", "--label-filter", narrow)
				res.wire, res.wireErr = &w, err
			case wantMinimal == Missed:
				// A mutant of our own fields, behind the variant that strips
				// them: under --strict too, no spec of its rules may fail.
				o, err := runMinimal(checkBin, server, filepath.Join(dir, "minimal"), "--strict", "--label-filter", filter)
				res.minimal, res.minimalErr = &o, err
			}
			ch <- res
		}()
	}
	defer wg.Wait()

	var rows []row
	t.Run("servers", func(t *testing.T) {
		pristine := false
		t.Run("pristine", func(t *testing.T) {
			pristine = true
			checkPristine(t, ms, len(addrs) > 0)
		})
		if pristine {
			// The control: the pristine server behind the minimal variant,
			// checked as the mutants are there. Like the pristine run it
			// has the machine to itself but for builds: its timer specs
			// measure the variant's pings through the proxy.
			t.Run("pristine-behind-minimal", func(t *testing.T) {
				checkBin, err := minimalCheck()
				if err != nil {
					t.Fatal(err)
				}
				o, err := runMinimal(checkBin, filepath.Join(minimalDir, "lmp-server"), filepath.Join(minimalDir, "control"))
				checkMinimalControl(t, result{o: o, err: err})
			})
		}
		close(pristineDone)
		for _, m := range selected {
			t.Run(m.ID, func(t *testing.T) {
				if lack := hostLacks(m, addrs); lack != "" {
					t.Skipf("mutant %s is observable only on a host with %s (needs_host: %s), and this one has none", m.ID, lack, m.NeedsHost)
				}
				res := <-results[m.ID]
				r := row{mutant: m, verdict: Broken, problem: "no usable report"}
				if res.err == nil {
					r = judge(m, res.o)
				} else {
					r.problem = res.err.Error()
				}
				if res.wire != nil {
					r.wire = wireVerdict(m, *res.wire, res.wireErr)
					switch {
					case m.NeedsDriver == "" && r.wire != Caught:
						t.Errorf("mutant %s (%s): caught by default, but not by the driverless run (--no-driver --triggers mock): %s; if only the Hermes side shows it, say why in needs_driver\n%s",
							m.ID, m.Does, r.wire, wireTail(*res.wire, res.wireErr))
					case m.NeedsDriver != "" && r.wire == Caught:
						t.Errorf("mutant %s: needs_driver says %q, but the driverless run caught it: drop needs_driver", m.ID, m.NeedsDriver)
					}
				}
				if res.minimal != nil {
					r.minimal = minimalVerdict(m, *res.minimal, res.minimalErr)
					switch want := minimalExpectation(m); {
					case r.minimal == want:
					case want == Caught && r.wire == Caught:
						t.Errorf("mutant %s (%s): caught by default and by the driverless run, but not behind the minimal variant (only the fields lmp-v1.md defines): %s; a spec that caught it read a field of ours: make it read what the spec defines\n%s",
							m.ID, m.Does, r.minimal, wireTail(*res.minimal, res.minimalErr))
					case want == Caught:
						// The driverless run's own error above says it.
					default:
						t.Errorf("mutant %s (%s) breaks only our own fields (own_fields: %s), yet behind the minimal variant, which strips them, --strict gave %s: a spec judged a field that is not there\n%s",
							m.ID, m.Does, m.OwnFields, r.minimal, wireTail(*res.minimal, res.minimalErr))
					}
				}
				rows = append(rows, r)
				if want := expected(m); r.verdict != want && (want != Missed || r.verdict != StrictOnly) {
					t.Errorf("mutant %s (%s): verdict %s, want %s: %s\n%s", m.ID, m.Does, r.verdict, want, orDash(r.problem), tail(res.o.output))
				}
			})
		}
	})
	if len(rows) == 0 {
		return
	}
	var table strings.Builder
	writeTable(&table, rows)
	// Logged, so go test shows it with -v and whenever the self-test fails.
	t.Logf("self-test table (%d mutants, %v wall time):\n%s", len(rows), time.Since(start).Round(time.Second), table.String())
}

// expected is the verdict the catalogue promises for m: caught by
// default, unless it says why only --strict catches it, or why nothing
// can (a survivor may still fail a SHOULD spec).
func expected(m mutant.Mutant) string {
	switch {
	case m.StrictOnly != "":
		return StrictOnly
	case m.Survives != "":
		return Missed
	}
	return Caught
}

// selectedMutants are the mutants that go test's -run pattern selects
// under TestSelfTest/servers/, so that running one mutant builds one.
func selectedMutants(ms []mutant.Mutant) []mutant.Mutant {
	pattern := ""
	if f := flag.Lookup("test.run"); f != nil {
		pattern = f.Value.String()
	}
	parts := strings.Split(pattern, "/")
	if len(parts) < 3 {
		if len(parts) == 2 && !regexp.MustCompile(parts[1]).MatchString("servers") {
			return nil
		}
		return ms
	}
	if !regexp.MustCompile(parts[1]).MatchString("servers") {
		return nil
	}
	re := regexp.MustCompile(parts[2])
	var out []mutant.Mutant
	for _, m := range ms {
		if re.MatchString(m.ID) {
			out = append(out, m)
		}
	}
	return out
}

// checkPristine runs every spec against the clean reference server: all
// must pass, and every rule a mutant breaks must be checked.
func checkPristine(t *testing.T, ms []mutant.Mutant, networkAddress bool) {
	dir := t.TempDir()
	bin, err := buildCheck(dir)
	if err != nil {
		t.Fatal(err)
	}
	o, err := runCheck(bin)
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(o.output))
	}
	if o.exit != check.ExitConformant || !o.report.Conformant {
		// The failing specs first, by name and reason: the output's tail
		// may hold only the last transcript.
		var failed []string
		for _, s := range o.report.Specs {
			if s.Verdict == string(check.Fail) || s.Verdict == string(check.UnexpectedPass) {
				failed = append(failed, fmt.Sprintf("%s [%s] %s: %s", s.Verdict, strings.Join(s.Rules, ","), s.Text, s.Reason))
			}
		}
		t.Fatalf("lmp-check failed the pristine server (exit %d):\n%s\n%s", o.exit, strings.Join(failed, "\n"), tail(o.output))
	}
	pass := 0
	for _, s := range o.report.Specs {
		switch s.Verdict {
		case string(check.Pass):
			pass++
		case string(check.Skipped):
			// Only the timing profile's spec may skip (the short profile
			// deviates from the spec's timings on purpose), and the
			// kill -9 specs: the in-process server restarts cleanly in
			// place, but is no process of its own to kill (TestNeutrality
			// and cmd/lmp-check's TestTargetCommands run them against
			// real processes).
			// The LAN specs skip too on a host with no address other
			// than loopback.
			restart := s.Reason == "needs --crash-cmd"
			noLAN := !networkAddress && strings.HasPrefix(s.Reason, conformance.SkipNoLAN)
			if !strings.HasPrefix(s.Reason, conformance.SkipTimingsDeviate) && !restart && !noLAN {
				t.Errorf("pristine server: spec skipped: [%s] %s: %s", strings.Join(s.Rules, ","), s.Text, s.Reason)
			}
		default:
			t.Errorf("pristine server: spec %s: [%s] %s: %s", s.Verdict, strings.Join(s.Rules, ","), s.Text, s.Reason)
		}
	}
	if pass == 0 {
		t.Fatal("pristine server: no spec ran")
	}
	for _, m := range ms {
		for _, id := range m.Rules {
			if !slices.Contains(o.report.Coverage.RulesChecked, id) {
				t.Errorf("mutant %s breaks %s, which no spec of the full run checks", m.ID, id)
			}
		}
	}
	t.Logf("pristine server: %d specs pass in %.1fs", pass, o.duration.Seconds())
}
