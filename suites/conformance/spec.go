package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

func init() {
	gomega.RegisterFailHandler(ginkgo.Fail)
}

// Label values the suites use besides rule IDs and levels.
const (
	// LabelDriver marks specs that need the mock Hermes driver API.
	LabelDriver = "driver"
	// LabelTimer marks specs that wait on a protocol timer.
	LabelTimer = "timer"
	// LabelServerLog marks specs that read the server's log file.
	LabelServerLog = "server-log"
)

// SkipNoDriver is the skip reason of driver specs without --driver-url.
const SkipNoDriver = "needs --driver-url (Hermes-side events)"

// NeedsDriver is a decorator for specs that need Hermes-side events: it
// labels them, and they are skipped with SkipNoDriver when no driver API is
// configured.
var NeedsDriver = ginkgo.Label(LabelDriver)

// LabelObservesNothing marks specs that report what the target declares
// (its timing profile) rather than observe the server.
const LabelObservesNothing = "observes-nothing"

// ObservesNothing is a decorator for specs that report on their rules
// without observing the server: coverage never counts them
// (NotObserved), nor does the rule → needs table.
var ObservesNothing = ginkgo.Label(LabelObservesNothing)

// Timer is a decorator for specs that wait on a protocol timer.
var Timer = ginkgo.Label(LabelTimer)

// ReadsServerLog is a decorator for specs that read the server's log file
// (Target.ServerLog); they skip themselves with SkipNoServerLog without it.
var ReadsServerLog = ginkgo.Label(LabelServerLog)

// Section registers one container of the section s (h2spec style: a
// file per part of a section), declared by Declare once the target is
// known: body declares the container's specs through the Specs it is
// given. Every spec in it gets the section's label, and its connections
// are checked and closed when the spec ends.
func Section(s SuiteSection, body func(*Specs)) bool {
	declareMu.Lock()
	defer declareMu.Unlock()
	sections = append(sections, section{s, body})
	return true
}

type section struct {
	SuiteSection
	body func(*Specs)
}

// Specs declares the specs of one section's container for the target
// the tree is built for: Declare hands it to the section's body, and each
// spec's body reaches the target through its context (TargetOf).
type Specs struct {
	target  *Target
	section SuiteSection
}

// Declare builds the spec tree for the target t: every registered
// section's container, the probes' start and stop around the suite, and in
// each spec t, which its body reaches through its context (TargetOf). Call
// it once, before ginkgo.RunSpecs; a nil t declares the tree for a preview
// (ginkgo.PreviewSpecs), whose spec bodies never run. Declaring again for
// the same target does nothing.
func Declare(t *Target) error {
	declareMu.Lock()
	defer declareMu.Unlock()
	if t != nil {
		if err := t.ready(); err != nil {
			return err
		}
	}
	if declared {
		if declaredFor != t {
			return errors.New("conformance: the spec tree is declared once per process, for one target")
		}
		return nil
	}
	declared, declaredFor = true, t
	// All probes start together when the suite starts, so that timer-bound
	// specs overlap in time. The specs that restart the server or produce
	// bursts of hundreds of events wait for them first (AwaitProbes).
	ginkgo.BeforeSuite(func() { StartProbes(t) })
	ginkgo.AfterSuite(StopProbes)
	for _, s := range sections {
		ginkgo.Describe(s.Title, ginkgo.Label("section:"+s.Label), func() {
			s.body(&Specs{target: t, section: s.SuiteSection})
		})
	}
	return nil
}

var (
	declareMu   sync.Mutex
	sections    []section
	declared    bool
	declaredFor *Target
)

// It declares one spec of the section. ids names the rule(s) it checks, separated by
// commas ("P-4" or "P-4,P-6"); level is how strongly they bind; text is
// the requirement as the report shows it. The spec is labelled with each
// rule ID and the level; its leaf text starts with the rule IDs so that
// --focus can select by ID too.
func (sp *Specs) It(ids string, level rules.Level, text string, body func(ginkgo.SpecContext), decorators ...any) bool {
	ruleIDs := splitIDs(ids)
	if err := rules.Validate(ruleIDs...); err != nil {
		// A spec naming an unknown rule is a bug in the suites; the
		// matrix test reports it too.
		panic(fmt.Sprintf("conformance: It(%q): %v", text, err))
	}
	labels := append([]string{string(level)}, ruleIDs...)
	args := []any{ginkgo.Label(labels...)}
	needsDriver, needsEvents, timer, observesNothing, driverFirst := false, false, false, false, false
	var timeout time.Duration // the spec's own SpecTimeout, if any
	all := append([]string{"section:" + sp.section.Label}, labels...)
	for _, d := range decorators {
		if l, ok := d.(ginkgo.Labels); ok {
			for _, v := range l {
				needsDriver = needsDriver || v == LabelDriver
				needsEvents = needsEvents || v == LabelEvents
				timer = timer || v == LabelTimer
				observesNothing = observesNothing || v == LabelObservesNothing
				driverFirst = driverFirst || v == LabelDriverFirst
			}
			all = append(all, l...)
		}
		if st, ok := d.(ginkgo.SpecTimeout); ok {
			timeout = time.Duration(st)
			continue
		}
		args = append(args, d)
	}
	if timeout == 0 {
		timeout = DefaultSpecTimeout()
	}
	if timer {
		timeout = max(timeout, timerSpecTimeout(sp.target))
		timerSpecLabels = append(timerSpecLabels, all)
	}
	args = append(args, ginkgo.SpecTimeout(timeout))
	t := sp.target
	leaf := "[" + strings.Join(ruleIDs, ",") + "] " + text
	specIndex = append(specIndex, indexedSpec{all, sp.section.Title + " " + leaf})
	wrapped := func(ctx ginkgo.SpecContext) {
		if t == nil {
			ginkgo.Fail("conformance: the tree was declared for a preview, not for a run (Declare(nil))")
		}
		ctx, cancel := t.withinRun(ctx)
		defer cancel()
		st := &specState{}
		ginkgo.DeferCleanup(st.finish)
		values := context.WithValue(WithTarget(ctx, t), stateKey{}, st)
		switch {
		case needsDriver && !t.HasDriver():
			ginkgo.Skip(SkipNoDriver)
		case needsDriver, driverFirst && t.HasDriver():
			st.recordSource(SourceDriver)
		case needsEvents && t.EventSource() == SourceNone:
			ginkgo.Skip(SkipNoEvents)
		}
		if observesNothing {
			NotObserved(ids, "the spec reports what the target declares; other specs observe the rule")
		}
		body(specContext{ctx, values})
	}
	args = append(args, wrapped)
	return ginkgo.It(leaf, args...)
}

// timerSpecTimeout is the least a timer spec's timeout can be for t: the
// run's longest timer with every attempt of its probe (BudgetFor), and a
// wait. A spec's own timeout covers the spec's timings; this one covers a
// target that declares longer ones (flags, its driver), so that the spec
// judges its probe instead of timing out. In a preview (t nil) the spec's
// defaults stand in.
func timerSpecTimeout(t *Target) time.Duration {
	p := lmp.DefaultProfile()
	if t != nil {
		p = t.Profile
	}
	return BudgetFor(p, 0).Timers + Wait()
}

// timerSpecLabels are the labels of every timer spec of the declared
// tree (StartProbes reads them to learn whether the selection holds one).
var timerSpecLabels [][]string

// specContext is a spec's ginkgo.SpecContext that also carries its target.
type specContext struct {
	ginkgo.SpecContext
	values context.Context // the SpecContext with the target added
}

func (c specContext) Value(key any) any { return c.values.Value(key) }

func splitIDs(ids string) []string {
	return strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' })
}

// DefaultSpecTimeout bounds a spec that waits on no long timer: generous
// enough for a slow CI machine, short enough that a hung server fails
// fast.
func DefaultSpecTimeout() time.Duration { return 30 * time.Second }

// Wait is the usual bound for one expected frame: a server answers within
// it or the spec fails.
func Wait() time.Duration { return 10 * time.Second }

// specState is what one running spec owns: the connections it opened,
// those it was shown (a probe's), and the event source it recorded. The
// spec's context carries it; nothing outlives the spec.
type specState struct {
	mu       sync.Mutex
	conns    []*Conn
	attached []*Conn
	source   Source
}

type stateKey struct{}

// stateOf returns the state of the spec ctx belongs to, nil outside one
// (a probe's context).
func stateOf(ctx context.Context) *specState {
	st, _ := ctx.Value(stateKey{}).(*specState)
	return st
}

func track(ctx context.Context, c *Conn) {
	if st := stateOf(ctx); st != nil {
		st.mu.Lock()
		st.conns = append(st.conns, c)
		st.mu.Unlock()
	}
}

// Attach adds connections opened elsewhere (a probe's) to the report of
// the spec ctx belongs to, without closing them at its end.
func Attach(ctx context.Context, conns ...*Conn) {
	if st := stateOf(ctx); st != nil {
		st.mu.Lock()
		st.attached = append(st.attached, conns...)
		st.mu.Unlock()
	}
}

// finish validates every frame the spec's connections received, attaches
// transcripts when the spec failed, and closes the connections.
func (st *specState) finish() {
	st.mu.Lock()
	conns, extra := st.conns, st.attached
	st.conns, st.attached = nil, nil
	st.mu.Unlock()
	defer func() {
		for _, c := range conns {
			_ = c.CloseNow()
		}
	}()
	var problems []string
	for _, c := range conns {
		for _, p := range c.problems() {
			problems = append(problems, c.Name+": "+p)
		}
	}
	all := append(conns, extra...)
	failed := ginkgo.CurrentSpecReport().Failed() || len(problems) > 0
	if failed {
		for _, c := range all {
			ginkgo.AddReportEntry("transcript: "+c.Name, c.Transcript().String(), ginkgo.ReportEntryVisibilityFailureOrVerbose)
		}
	}
	if len(problems) > 0 {
		ginkgo.Fail("frames received that break the schema (E-1, F-1):\n" + strings.Join(problems, "\n"))
	}
}

// EntryNotObserved names the report entry of NotObserved, whose value is
// a NotObservedEntry.
const EntryNotObserved = "not observed"

// NotObservedEntry is what NotObserved records: the rules the spec did not
// observe this time, and why.
type NotObservedEntry struct {
	Rules []string
	Why   string
}

// String is the entry as a report shows it: "T-4,E-5: why".
func (e NotObservedEntry) String() string { return strings.Join(e.Rules, ",") + ": " + e.Why }

// NotObserved records that the running spec, although labelled with these
// rule IDs, did not observe them this time (why says so): lmp-check's
// coverage does not count them for it. ids are separated by commas.
func NotObserved(ids, why string) {
	if err := rules.Validate(splitIDs(ids)...); err != nil {
		panic(fmt.Sprintf("conformance.NotObserved(%q): %v", ids, err))
	}
	ginkgo.AddReportEntry(EntryNotObserved, NotObservedEntry{Rules: splitIDs(ids), Why: why})
}

// Note adds an entry to the report of the spec ctx belongs to, visible
// whether it passes or fails; outside a spec (a probe's context) it does
// nothing, as a probe notes what it saw with Probe.Notef.
func Note(ctx context.Context, name, text string) {
	if stateOf(ctx) != nil {
		ginkgo.AddReportEntry(name, text)
	}
}
