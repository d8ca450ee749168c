package mockhermes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// Options configure a Mock.
type Options struct {
	// ApprovalTimeout is how long an approval waits for an answer before
	// Hermes blocks the command with choice "timeout". Zero means Hermes'
	// default of 300 s.
	ApprovalTimeout time.Duration
	// Logger receives the mock's log lines; nil discards them.
	Logger *slog.Logger
	// Faults imitate Hermes' own delivery quirks on every scenario played.
	// Off by default.
	Faults Faults
}

// TelemetrySchemaVersion is the telemetry_schema_version every hook carries.
const TelemetrySchemaVersion = 1

// Defaults of the turn metadata the mock reports in stream hooks.
const (
	DefaultModel    = "mock-model"
	DefaultProvider = "mock"
	Surface         = "gateway"
	Platform        = "loomi"
)

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("mockhermes: closed")

// ErrNotAttached is returned when the mock must call the adapter before
// Attach has been called.
var ErrNotAttached = errors.New("mockhermes: no adapter attached")

// Mock is a scripted Hermes gateway. It implements server.Hermes. Create it
// with New and give it the server with Attach.
type Mock struct {
	opts Options
	log  *slog.Logger

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the mock starts

	mu        sync.Mutex
	adapter   server.Adapter
	closed    bool
	scenarios map[string]*Scenario
	sessions  map[string]*session    // by chat id (== task id == session id)
	approvals map[string][]*approval // pending, oldest first, by session key
	rec       recorder
}

var _ server.Hermes = (*Mock)(nil)

// New returns a mock with the built-in scenarios loaded.
func New(opts Options) *Mock {
	if opts.ApprovalTimeout <= 0 {
		opts.ApprovalTimeout = lmp.DefaultApprovalTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Mock{
		opts: opts, log: log, ctx: ctx, cancel: cancel,
		scenarios: builtinScenarios(),
		sessions:  make(map[string]*session),
		approvals: make(map[string][]*approval),
	}
	return m
}

// Attach gives the mock the adapter it calls: the server, once created.
func (m *Mock) Attach(a server.Adapter) {
	m.mu.Lock()
	m.adapter = a
	m.mu.Unlock()
}

// Close stops every running scenario, timer and pending approval, and waits
// for the mock's goroutines to end. Pending approvals end without a
// post_approval_response: the gateway is going away.
func (m *Mock) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
}

// LoadScript loads a scenario file; its scenario is added, or replaces a
// scenario of the same name. Errors name the file and line.
func (m *Mock) LoadScript(path string) error {
	sc, err := parseScenarioFile(path)
	return m.addScenario(sc, err)
}

// LoadScriptBytes is LoadScript for a script held in memory; file names it
// in errors.
func (m *Mock) LoadScriptBytes(file string, src []byte) error {
	return m.addScenario(ParseScenario(file, src))
}

func (m *Mock) addScenario(sc *Scenario, err error) error {
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.scenarios[sc.Name] = sc
	m.mu.Unlock()
	return nil
}

// go runs f on a goroutine the mock waits for in Close. It reports false,
// without running f, once the mock is closed.
func (m *Mock) goroutine(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

func (m *Mock) getAdapter() server.Adapter {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.adapter
}

// hook delivers a plugin hook, adding telemetry_schema_version like Hermes'
// hook dispatcher does.
func (m *Mock) hook(ctx context.Context, name string, kwargs map[string]any) {
	a := m.getAdapter()
	if a == nil {
		m.log.Warn("mockhermes: hook dropped, no adapter attached", "hook", name)
		return
	}
	if _, ok := kwargs["telemetry_schema_version"]; !ok {
		kwargs["telemetry_schema_version"] = TelemetrySchemaVersion
	}
	a.Hook(ctx, name, jsonShape(kwargs))
}

// jsonShape returns v as decoded JSON would hold it (numbers as float64),
// which is the form the Adapter contract promises for hook kwargs.
func jsonShape(v map[string]any) map[string]any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out map[string]any
	if json.Unmarshal(raw, &out) != nil {
		return v
	}
	return out
}

// newID returns prefix followed by 16 random hex digits.
func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// SessionKey is the gateway session key of the LMP DM chat chatID.
func SessionKey(chatID string) string { return server.SessionKeyPrefix + chatID }
