package mockhermes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// Busy-input modes (display.busy_input_mode): what a message to a chat whose
// turn is still running does.
const (
	BusyInterrupt = "interrupt" // Hermes' default: the running turn stops, the message runs next
	BusyQueue     = "queue"     // the message waits for the running turn
)

// Options configure a Mock. The zero value is Hermes' defaults.
type Options struct {
	// ApprovalTimeout is how long an approval waits for an answer before
	// Hermes blocks the command with choice "timeout". Zero means Hermes'
	// default of 300 s.
	ApprovalTimeout time.Duration
	// PromptTimeout is how long the gateway waits for the adapter's
	// approval prompt to be delivered before counting it as possibly
	// delivered. Zero means Hermes' 15 s.
	PromptTimeout time.Duration
	// Logger receives the mock's log lines; nil discards them.
	Logger *slog.Logger
	// Faults imitate Hermes' own delivery behaviour under load on every
	// scenario played. Off by default.
	Faults Faults
	// StreamReasoningDeltas is plugins.stream_reasoning_deltas: reasoning
	// reaches plugins as on_stream_delta kind "reasoning" only when it is
	// on. Off by default, as in Hermes.
	StreamReasoningDeltas bool
	// BusyInputMode is display.busy_input_mode: BusyInterrupt (the
	// default) or BusyQueue.
	BusyInputMode string
	// AllowUser decides whether an inbound message's sender may talk to
	// Hermes (the platform's allow-list). Nil refuses everyone unless
	// AllowAllUsers is set, as Hermes does by default.
	AllowUser func(hermes.SessionSource) bool
	// AllowAllUsers lets every sender in (GATEWAY_ALLOW_ALL_USERS).
	AllowAllUsers bool
	// Crosstalk plays, beside each scenario turn, a turn of another
	// platform (telegram) and, for turns that call tools, one of a
	// subagent: hooks are process-wide, so a platform plugin receives
	// them too. Off by default.
	Crosstalk bool
	// GatewayProfile is the Hermes profile a gateway that multiplexes
	// profiles (multiplex_profiles) runs the Loomi chats under: their
	// session keys are agent:<profile>:loomi:dm:<chat_id>. Empty, or
	// "default", is Hermes' default namespace, main; a profile itself named
	// main is main~, as in Hermes, so that it never collides with it.
	GatewayProfile string
}

// TelemetrySchemaVersion is the telemetry_schema_version stream hooks carry.
const TelemetrySchemaVersion = hermes.TelemetrySchemaVersion

// Defaults of the turn metadata the mock reports in hooks.
const (
	DefaultModel    = "mock-model"
	DefaultProvider = "mock"
	// Platform is the Loomi platform's name: the source of its sessions and
	// the surface of its turns' stream hooks.
	Platform = hermes.Platform
)

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("mockhermes: closed")

// ErrNotAttached is returned when the mock must call the adapter before
// Attach has been called.
var ErrNotAttached = errors.New("mockhermes: no adapter attached")

// Mock is a scripted Hermes gateway. It implements hermes.Hermes. Create it
// with New and give it the server with Attach.
type Mock struct {
	opts Options
	log  *slog.Logger

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the mock starts

	// Deterministic sources for golden tests; nil in use.
	clock  func() time.Time
	idgen  func(prefix string) string
	random func([]byte)

	mu        sync.Mutex
	adapter   hermes.Adapter
	out       *dispatcher
	closed    bool
	scenarios map[string]*Scenario
	chats     map[string]*chat       // by chat id
	rows      map[string]*sessionRow // the session store, by session id
	byStart   []*sessionRow          // the same rows, oldest first (sessionOrder): list_sessions_rich pages from the end
	// sessionCap is maxSessions, lowered by tests.
	sessionCap int
	approvals  map[string][]*approval // pending, oldest first, by session key
	// Patterns granted for a session ("session") or for good ("always"):
	// their commands run without asking again.
	grantedSession map[string]map[string]bool // by session key, pattern key
	grantedAlways  map[string]bool
	crossN         int // crosstalk turns played, to alternate platforms
	rec            recorder
	hookLog        hookLog // the hooks delivered to the adapter (driver GET /hooks)
	holds          holds   // calls Hermes is slow to answer (driver POST /hold)
}

var _ hermes.Hermes = (*Mock)(nil)

// New returns a mock with the built-in scenarios loaded.
func New(opts Options) *Mock {
	if opts.ApprovalTimeout <= 0 {
		opts.ApprovalTimeout = lmp.DefaultApprovalTimeout
	}
	if opts.PromptTimeout <= 0 {
		opts.PromptTimeout = DefaultPromptTimeout
	}
	if opts.BusyInputMode == "" {
		opts.BusyInputMode = BusyInterrupt
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Mock{
		opts: opts, log: log, ctx: ctx, cancel: cancel,
		random:     func(b []byte) { _, _ = rand.Read(b) },
		scenarios:  builtinScenarios(),
		chats:      make(map[string]*chat),
		rows:       make(map[string]*sessionRow),
		approvals:  make(map[string][]*approval),
		sessionCap: maxSessions,

		grantedSession: make(map[string]map[string]bool),
		grantedAlways:  make(map[string]bool),

		rec:     recorder{boundedLog[driver.Call]{maxEntries: maxCalls, maxBytes: maxCallBytes}},
		hookLog: hookLog{boundedLog[driver.Hook]{maxEntries: maxHooks, maxBytes: maxHookBytes}},
	}
	m.out = newDispatcher(m)
	return m
}

// DefaultPromptTimeout is how long Hermes waits for an approval prompt's
// delivery (tools/approval_gateway_wait.py).
const DefaultPromptTimeout = 15 * time.Second

// CheckOptions reports an option Hermes would not accept.
func CheckOptions(o Options) error {
	switch o.BusyInputMode {
	case "", BusyInterrupt, BusyQueue:
	default:
		return fmt.Errorf("busy input mode %q: want %s or %s", o.BusyInputMode, BusyInterrupt, BusyQueue)
	}
	if !validProfileName(o.GatewayProfile) {
		return fmt.Errorf("gateway profile %q: a Hermes profile name is lower-case letters, digits, _ and -, starting with a letter or digit", o.GatewayProfile)
	}
	return nil
}

// validProfileName reports whether name can be a Hermes profile's name (or
// is empty: the default profile). Hermes' names are service directory
// names too: lower-case letters, digits, _ and -, starting with a letter or
// digit, at most 251 bytes. None holds a colon, which is what lets an
// adapter read the chat id out of a session key.
func validProfileName(name string) bool {
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '_' || r == '-') && i > 0:
		default:
			return false
		}
	}
	return len(name) <= 251
}

// Attach gives the mock the adapter it calls: the server, once created.
func (m *Mock) Attach(a hermes.Adapter) {
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
	m.out.close()
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

// goroutine runs f on a goroutine the mock waits for in Close. It reports
// false, without running f, once the mock is closed.
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

func (m *Mock) getAdapter() hermes.Adapter {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.adapter
}

// hook fires a plugin hook through Hermes' dispatch: stream hooks get
// telemetry_schema_version and go through the stream-hook dispatcher, the
// others are called on the agent's goroutine.
func (m *Mock) hook(ctx context.Context, name string, kwargs map[string]any) {
	m.hookWith(ctx, m.opts.Faults, name, kwargs)
}

// fire fires a hook built from its typed kwargs.
func (m *Mock) fire(ctx context.Context, a hermes.Args) {
	m.hook(ctx, a.HookName(), hermes.Encode(a))
}

func (m *Mock) hookWith(ctx context.Context, f Faults, name string, kwargs map[string]any) {
	if !hermes.IsStreamHook(name) {
		m.deliver(ctx, name, jsonShape(kwargs))
		return
	}
	if _, ok := kwargs["telemetry_schema_version"]; !ok {
		kwargs["telemetry_schema_version"] = TelemetrySchemaVersion // a driver's hook may leave it out
	}
	// Hermes drops a stream payload whose JSON is over the bound. Most are
	// a delta of a few words, known to fit without encoding them, and
	// shaped as their JSON would decode without a round trip (jsonBound).
	if jsonBound(kwargs) <= MaxStreamPayload {
		m.out.stream(ctx, f, name, jsonShape(kwargs))
		return
	}
	raw, err := json.Marshal(kwargs)
	if err != nil || len(raw) > MaxStreamPayload {
		m.out.drop(name, "payload exceeds the size bound")
		return
	}
	m.out.stream(ctx, f, name, decoded(raw, kwargs))
}

// decoded is raw, the JSON encoding of v, decoded again; v when it does not
// decode.
func decoded(raw []byte, v map[string]any) map[string]any {
	var out map[string]any
	if json.Unmarshal(raw, &out) != nil {
		return v
	}
	return out
}

// deliver calls the adapter's hook callback. Every hook the adapter
// receives passes here, whichever way Hermes dispatched it, so this is
// where the hook log records it: once the callback has returned.
func (m *Mock) deliver(ctx context.Context, name string, kwargs map[string]any) {
	m.deliverSized(ctx, name, kwargs, approxSize(kwargs))
}

// deliverSized is deliver for kwargs whose approxSize is known.
func (m *Mock) deliverSized(ctx context.Context, name string, kwargs map[string]any, size int) {
	a := m.getAdapter()
	if a == nil {
		m.log.Warn("mockhermes: hook dropped, no adapter attached", "hook", name)
		return
	}
	// The log keeps its own map, in case the adapter changes the one it
	// gets; a copy of the nested values too would cost the stream hooks'
	// workers enough to overflow their queues sooner.
	delivered := maps.Clone(kwargs)
	a.Hook(ctx, name, kwargs)
	m.hookLog.add(name, delivered, size)
}

// jsonShape returns v as decoded JSON would hold it (numbers as float64),
// which is the form the Adapter contract promises for hook kwargs.
func jsonShape(v map[string]any) map[string]any {
	out, ok := shapeJSON(v).(map[string]any)
	if !ok {
		return v
	}
	return out
}

// newID returns prefix followed by 16 random hex digits.
func (m *Mock) newID(prefix string) string {
	if m.idgen != nil {
		return m.idgen(prefix)
	}
	var b [8]byte
	m.random(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// SessionKey is the gateway session key of the Loomi DM chat chatID in
// Hermes' default profile: agent:main:loomi:dm:<chat_id>.
func SessionKey(chatID string) string { return hermes.SessionKey("", chatID) }

// sessionKey is the session key of the Loomi DM chat chatID under the
// mock's gateway profile (Options.GatewayProfile).
func (m *Mock) sessionKey(chatID string) string {
	return hermes.SessionKey(m.opts.GatewayProfile, chatID)
}
