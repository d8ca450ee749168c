package mockhermes

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// event is one call the mock made into the fake adapter.
type event struct {
	Kind   string // hook, prompt, send
	Name   string // hook name
	Kwargs map[string]any
	Prompt hermes.ExecApprovalPrompt
	ChatID string
	Text   string
	Meta   map[string]any
}

func (e event) String() string {
	switch e.Kind {
	case "hook":
		return e.Name
	case "prompt", "interrupt":
		return e.Kind
	}
	return "send"
}

// fakeAdapter records what the mock tells the server.
type fakeAdapter struct {
	mu        sync.Mutex
	events    []event
	promptErr error
	// noButtons makes supports_exec_approval_buttons() false; sendFails
	// makes every send() fail; promptBlock, when set, holds every prompt
	// until it is closed; hookGate, when set, is called before a hook is
	// recorded.
	noButtons   bool
	sendFails   bool
	promptBlock chan struct{}
	hookGate    func(name string, kw map[string]any)
}

func (f *fakeAdapter) add(e event) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
}

func (f *fakeAdapter) Hook(_ context.Context, name string, kwargs map[string]any) {
	if f.hookGate != nil {
		f.hookGate(name, kwargs)
	}
	f.add(event{Kind: "hook", Name: name, Kwargs: kwargs})
}

func (f *fakeAdapter) SendExecApprovalPrompt(_ context.Context, p hermes.ExecApprovalPrompt) error {
	f.add(event{Kind: "prompt", Prompt: p, ChatID: p.ChatID})
	if f.promptBlock != nil {
		<-f.promptBlock
	}
	return f.promptErr
}

func (f *fakeAdapter) Send(_ context.Context, chatID, content string, md map[string]any) hermes.SendResult {
	f.add(event{Kind: "send", ChatID: chatID, Text: content, Meta: md})
	if f.sendFails {
		return hermes.SendResult{Error: "offline", Retryable: true}
	}
	return hermes.SendResult{Success: true, MessageID: fmt.Sprintf("m%d", len(f.snapshot()))}
}

func (f *fakeAdapter) SupportsExecApprovalButtons() bool { return !f.noButtons }

func (f *fakeAdapter) InterruptSessionActivity(_ context.Context, sessionKey, chatID string) {
	f.add(event{Kind: "interrupt", ChatID: chatID, Text: sessionKey})
}

func (f *fakeAdapter) snapshot() []event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]event(nil), f.events...)
}

// hangGuard bounds every wait of these tests for something that must
// come: a bound on a hang, far above what a loaded machine takes, not a
// speed the tests ask for.
const hangGuard = 30 * time.Second

// waitFor polls the recorded events until ok accepts them or the hang
// guard runs out.
func (f *fakeAdapter) waitFor(t *testing.T, what string, ok func([]event) bool) []event {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		evs := f.snapshot()
		if ok(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; events: %s", what, names(evs))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (f *fakeAdapter) waitHook(t *testing.T, name string, n int) []event {
	t.Helper()
	return f.waitFor(t, fmt.Sprintf("%d× %s", n, name), func(evs []event) bool {
		return count(evs, name) >= n
	})
}

func count(evs []event, name string) int {
	n := 0
	for _, e := range evs {
		if e.String() == name {
			n++
		}
	}
	return n
}

func names(evs []event) string {
	s := make([]string, len(evs))
	for i, e := range evs {
		s[i] = e.String()
	}
	return strings.Join(s, " ")
}

// compact collapses runs of the same event name into "name×n", so that
// sequences read independently of chunking.
func compact(evs []event) string {
	var out []string
	for i := 0; i < len(evs); {
		j := i
		for j < len(evs) && evs[j].String() == evs[i].String() {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s×%d", evs[i], j-i))
		} else {
			out = append(out, evs[i].String())
		}
		i = j
	}
	return strings.Join(out, " ")
}

// sessionIDPattern is the shape of a session-store id.
var sessionIDPattern = regexp.MustCompile(`^\d{8}_\d{6}_[0-9a-f]{8}$`)

// newTestMock returns a mock whose allow-list lets everyone in, unless
// opts has its own, attached to a fake adapter.
func newTestMock(t *testing.T, opts Options) (*Mock, *fakeAdapter) {
	t.Helper()
	if opts.AllowUser == nil {
		opts.AllowAllUsers = true
	}
	m := New(opts)
	f := &fakeAdapter{}
	m.Attach(f)
	t.Cleanup(m.Close)
	return m, f
}

func play(t *testing.T, m *Mock, name string, args ...string) *Playback {
	t.Helper()
	pb, err := m.Play(context.Background(), name, args, "")
	if err != nil {
		t.Fatalf("play %s: %v", name, err)
	}
	return pb
}

func waitDone(t *testing.T, pb *Playback) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := pb.Wait(ctx); err != nil {
		t.Fatalf("playback: %v", err)
	}
}

type yamlDoc struct{}

func (yamlDoc) parse(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func serverListAll() hermes.ListSessionsOptions { return hermes.ListSessionsOptions{Limit: 200} }
