package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/loomi-lmp/lmpkit/client"
)

// Probe is a background check for a timer-bound spec. All probes start
// together when the suite starts (StartProbes), so that specs waiting on
// the heartbeat, the auth timeout or a token's TTL overlap in time and a
// full run lasts about as long as the longest timer. The spec then awaits
// its probe's outcome.
type Probe struct {
	Name string
	run  func(ctx context.Context, p *Probe) error

	once  sync.Once
	done  chan struct{}
	err   error
	mu    sync.Mutex
	conns []*Conn
	notes []string
	// running is set once the probe has started.
	running bool
}

var (
	probesMu     sync.Mutex
	probes       []*Probe
	probesCtx    context.Context
	probesCancel context.CancelFunc
	probesWG     sync.WaitGroup
)

// NewProbe registers a probe. Call it from a package-level var so that it
// exists before the suite starts.
func NewProbe(name string, run func(ctx context.Context, p *Probe) error) *Probe {
	p := &Probe{Name: name, run: run, done: make(chan struct{})}
	probesMu.Lock()
	probes = append(probes, p)
	probesMu.Unlock()
	return p
}

// StartProbes starts every registered probe against t, when the run's
// label filter selects a timer spec (a probe not started here starts when
// its spec awaits it); Declare runs it in BeforeSuite.
func StartProbes(t *Target) {
	probesMu.Lock()
	if probesCtx == nil {
		probesCtx, probesCancel = context.WithCancel(WithTarget(context.Background(), t))
	}
	list := append([]*Probe(nil), probes...)
	probesMu.Unlock()
	if sc, _ := ginkgo.GinkgoConfiguration(); !selectsTimerSpec(sc.LabelFilter) {
		return
	}
	for _, p := range list {
		p.start()
	}
}

// StopProbes cancels the probes still running, waits for them and closes
// their connections; the suites call it from AfterSuite.
func StopProbes() {
	probesMu.Lock()
	cancel := probesCancel
	list := append([]*Probe(nil), probes...)
	probesMu.Unlock()
	if cancel != nil {
		cancel()
	}
	probesWG.Wait()
	for _, p := range list {
		p.mu.Lock()
		for _, c := range p.conns {
			_ = c.CloseNow()
		}
		p.mu.Unlock()
	}
}

func (p *Probe) start() {
	p.once.Do(func() {
		p.mu.Lock()
		p.running = true
		p.mu.Unlock()
		probesMu.Lock()
		if probesCtx == nil {
			probesMu.Unlock()
			panic("conformance: a probe started before StartProbes (Declare runs it before the suite)")
		}
		ctx := probesCtx
		probesWG.Add(1)
		probesMu.Unlock()
		go func() {
			defer probesWG.Done()
			defer close(p.done)
			defer func() {
				if r := recover(); r != nil {
					p.err = fmt.Errorf("probe %s panicked: %v", p.Name, r)
				}
			}()
			p.err = p.run(ctx, p)
		}()
	})
}

// Await starts the probe if it has not started, waits for its outcome and
// attaches its connections to the running spec's report.
func (p *Probe) Await(ctx context.Context) error {
	p.start()
	attach := func() {
		p.mu.Lock()
		conns := append([]*Conn(nil), p.conns...)
		p.mu.Unlock()
		Attach(ctx, conns...)
	}
	select {
	case <-p.done:
		attach()
		return p.err
	case <-ctx.Done():
		attach()
		return fmt.Errorf("probe %s: still running when the spec gave up: %w", p.Name, ctx.Err())
	}
}

// Notes returns what the probe recorded with Notef.
func (p *Probe) Notes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.notes...)
}

// Notef records a line for the report.
func (p *Probe) Notef(format string, args ...any) {
	p.mu.Lock()
	p.notes = append(p.notes, fmt.Sprintf(format, args...))
	p.mu.Unlock()
}

// Dial opens a connection owned by the probe: it is not closed when a spec
// ends, and its transcript goes to the spec that awaits the probe.
func (p *Probe) Dial(ctx context.Context, opts *client.Options) (*Conn, error) {
	t := TargetOf(ctx)
	o := t.DialOptions()
	if opts != nil {
		o2 := *opts
		if o2.HTTPClient == nil {
			o2.HTTPClient = t.HTTPClient
		}
		o = &o2
	}
	c, err := client.Dial(ctx, t.WSURL, o)
	if err != nil {
		return nil, err
	}
	conn := &Conn{Conn: c, Name: "probe " + p.Name}
	p.mu.Lock()
	p.conns = append(p.conns, conn)
	p.mu.Unlock()
	return conn, nil
}

// Problems validates every frame the probe's connections received.
func (p *Probe) Problems() []string {
	p.mu.Lock()
	conns := append([]*Conn(nil), p.conns...)
	p.mu.Unlock()
	var out []string
	for _, c := range conns {
		out = append(out, c.problems()...)
	}
	return out
}

// AwaitProbes waits until every started probe has finished, or ctx ends:
// a spec that restarts the server would otherwise cut the probes'
// connections, and one that floods every connection with events would make
// the probes read their timers' frames late.
func AwaitProbes(ctx context.Context) {
	probesMu.Lock()
	list := append([]*Probe(nil), probes...)
	probesMu.Unlock()
	for _, p := range list {
		if !p.started() {
			continue
		}
		select {
		case <-p.done:
		case <-ctx.Done():
			return
		}
	}
}

// started reports whether the probe was started.
func (p *Probe) started() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running
}

// selectsTimerSpec reports whether a label filter selects at least one
// timer spec. The text filters (--focus, --skip) are not looked at: with
// them every probe starts.
func selectsTimerSpec(filter string) bool {
	if filter == "" {
		return true
	}
	keep, err := types.ParseLabelFilter(filter)
	if err != nil {
		return true // Ginkgo reports it
	}
	for _, l := range timerSpecLabels {
		if keep(l) {
			return true
		}
	}
	return false
}

// ErrProbeConnClosed is the cause of a probe's context ended by
// WhileOpen: the server closed one of the probe's connections.
var ErrProbeConnClosed = errors.New("the server closed the probe's connection")

// WhileOpen returns a context that ends, with a cause naming the
// connection and its close code, as soon as the server closes any of
// conns: a probe that waits on a timer (Hermes' approval timeout) fails at
// once, not when the timer would have run out. stop releases it.
func (p *Probe) WhileOpen(ctx context.Context, conns ...*Conn) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	for _, c := range conns {
		go func() {
			ce, err := c.WaitClosed(ctx)
			if err == nil {
				cancel(fmt.Errorf("probe %s: %w: %s: %v", p.Name, ErrProbeConnClosed, c.Name, ce))
			}
		}()
	}
	return ctx, func() { cancel(nil) }
}

// Cause is err, or, when ctx (from WhileOpen) ended because the server
// closed a connection, that cause. A wait on the closed connection itself
// may return before WhileOpen's watcher has ended ctx: an err that is the
// connection's end says so too.
func Cause(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrProbeConnClosed) {
		return cause
	}
	var ce *client.CloseError
	if errors.As(err, &ce) && !errors.Is(err, ErrProbeConnClosed) {
		return fmt.Errorf("%w: %w", ErrProbeConnClosed, err)
	}
	return err
}
