package mockhermes

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

var update = flag.Bool("update", false, "rewrite the golden traces in testdata/golden")

// tracer is an adapter that writes down every call Hermes makes into it,
// in order, and plays the user's part on cue: it answers approval prompts
// and sends /stop after a number of deltas, from inside the call, so that
// the trace does not depend on timing.
type tracer struct {
	t      *testing.T
	m      *Mock
	answer string // the choice an approval prompt gets
	stopAt int    // send /stop at this on_stream_delta (0: never)

	mu     sync.Mutex
	lines  []string
	deltas int
	seen   map[string]int
}

func (tr *tracer) add(kind, name string, args map[string]any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.seen == nil {
		tr.seen = map[string]int{}
	}
	tr.seen[name]++
	raw, _ := json.Marshal(args)
	tr.lines = append(tr.lines, kind+" "+name+" "+string(raw))
}

func (tr *tracer) Hook(ctx context.Context, name string, kw map[string]any) {
	checkHookKwargs(tr.t, name, kw)
	tr.add("hook", name, kw)
	if name == "on_stream_delta" {
		tr.mu.Lock()
		tr.deltas++
		stop := tr.deltas == tr.stopAt
		tr.mu.Unlock()
		if stop {
			chat := strings.TrimPrefix(tr.m.chatOfSession(kw["session_id"].(string)), "")
			if err := tr.m.HandleMessage(ctx, hermes.MessageEvent{Text: "/stop", MessageType: "text",
				Source: hermes.SessionSource{Platform: Platform, ChatID: chat, ChatType: "dm", UserID: "device-1"}}); err != nil {
				tr.t.Errorf("/stop: %v", err)
			}
		}
	}
}

func (tr *tracer) SupportsExecApprovalButtons() bool { return true }

func (tr *tracer) SendExecApprovalPrompt(ctx context.Context, p hermes.ExecApprovalPrompt) error {
	tr.add("adapter", "send_exec_approval", map[string]any{
		"chat_id": p.ChatID, "command": p.Command, "session_key": p.SessionKey, "description": p.Description,
		"allow_permanent": p.AllowPermanent, "allow_session": p.AllowSession, "smart_denied": p.SmartDenied,
		"request_id": p.RequestID, "metadata": p.Metadata,
	})
	if tr.answer != "" {
		if n, _ := tr.m.ResolveGatewayApproval(ctx, p.SessionKey, tr.answer, false, "", p.RequestID); n != 1 {
			tr.t.Errorf("resolve_gateway_approval resolved %d, want 1", n)
		}
	}
	return nil
}

func (tr *tracer) Send(_ context.Context, chatID, content string, md map[string]any) hermes.SendResult {
	tr.add("adapter", "send", map[string]any{"chat_id": chatID, "content": content, "metadata": md})
	return hermes.SendResult{Success: true, MessageID: "m1"}
}

func (tr *tracer) InterruptSessionActivity(_ context.Context, sessionKey, chatID string) {
	tr.add("adapter", "interrupt_session_activity", map[string]any{"session_key": sessionKey, "chat_id": chatID})
}

func (tr *tracer) count(name string) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.seen[name]
}

// chatOfSession finds the chat whose current session is id.
func (m *Mock) chatOfSession(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.chats {
		if c.sessionID == id {
			return c.id
		}
	}
	return ""
}

// trace is a golden trace: the lines, with each run of on_stream_delta of
// one kind folded into one line carrying the count and the joined text,
// and duration_ms (measured for approval waits) shown as its type.
func (tr *tracer) trace() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	var run []map[string]any
	flush := func() {
		if len(run) == 0 {
			return
		}
		first := run[0]
		var text strings.Builder
		for _, kw := range run {
			text.WriteString(kw["delta"].(string))
		}
		first["delta"] = text.String()
		raw, _ := json.Marshal(first)
		out = append(out, fmt.Sprintf("hook on_stream_delta ×%d %s", len(run), raw))
		run = nil
	}
	for _, l := range tr.lines {
		kind, rest, _ := strings.Cut(l, " ")
		name, args, _ := strings.Cut(rest, " ")
		var kw map[string]any
		_ = json.Unmarshal([]byte(args), &kw)
		if _, ok := kw["duration_ms"]; ok {
			kw["duration_ms"] = "<int>"
		}
		if name == "on_stream_delta" {
			if len(run) > 0 && (run[0]["kind"] != kw["kind"] || run[0]["iteration"] != kw["iteration"]) {
				flush()
			}
			run = append(run, kw)
			continue
		}
		flush()
		raw, _ := json.Marshal(kw)
		out = append(out, kind+" "+name+" "+string(raw))
	}
	flush()
	return strings.Join(out, "\n") + "\n"
}

// deterministic makes a mock's ids, clock and random bytes reproducible.
func deterministic(m *Mock) {
	var mu sync.Mutex
	n := map[string]int{}
	m.idgen = func(prefix string) string {
		mu.Lock()
		defer mu.Unlock()
		n[prefix]++
		return fmt.Sprintf("%s%d", prefix, n[prefix])
	}
	m.clock = func() time.Time { return time.Date(2026, 12, 1, 10, 15, 0, 0, time.UTC) }
	var seq byte
	m.random = func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		seq++
		for i := range b {
			b[i] = seq
		}
	}
}

type goldenCase struct {
	label    string // the trace's name when the scenario's is not enough
	scenario string
	args     []string
	opts     Options
	answer   string
	stopAt   int
	until    string // a call the trace ends with, after the turn
	// messages, when set, are the phone's messages handed to
	// handle_message one turn at a time instead of a scenario: a gateway
	// command such as /retry, whose turn no scenario starts.
	messages []string
}

var goldenCases = []goldenCase{
	{scenario: "reply"},
	{scenario: "reply", opts: Options{StreamReasoningDeltas: true}},
	{scenario: "tools"},
	{scenario: "interim"},
	{scenario: "approval", answer: lmp.ChoiceOnce},
	{scenario: "approval", answer: lmp.ChoiceDeny},
	{label: "approval-timeout", scenario: "approval", opts: Options{ApprovalTimeout: 20 * time.Millisecond}},
	{label: "smart-approve", scenario: "smart-approve"},
	{scenario: "smart", answer: lmp.ChoiceOnce},
	{scenario: "coalesce", answer: lmp.ChoiceSession},
	{scenario: "fail"},
	{scenario: "retry"},
	{scenario: "long", stopAt: 3, until: "send"},
	{scenario: "notify"},
	{scenario: "burst", args: []string{"3", "0s"}},
	{scenario: "quirks"},
	{scenario: "oversize"},
	{scenario: "quote"},
	{scenario: "image"},
	{scenario: "voice"},
	{scenario: "process", args: []string{"0s"}},
	{scenario: "btw"},
	{scenario: "review"},
	{scenario: "followup"},
	{scenario: "resume"},
	{label: "retry-command", messages: []string{"hello", RetryCommand}},
}

func (c goldenCase) name() string {
	if c.label != "" {
		return c.label
	}
	n := c.scenario
	if c.answer != "" {
		n += "-" + c.answer
	}
	if c.opts.StreamReasoningDeltas {
		n += "-reasoning"
	}
	return n
}

// TestGoldenTraces plays every built-in scenario and compares the hooks and
// adapter calls it makes with testdata/golden (go test -update rewrites
// them). Every built-in scenario has at least one trace.
func TestGoldenTraces(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range goldenCases {
		covered[c.scenario] = true
		t.Run(c.name(), func(t *testing.T) {
			got := playTrace(t, c)
			file := filepath.Join("testdata", "golden", c.name()+".trace")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("trace of %s differs from %s (go test -update rewrites it):\n%s", c.name(), file, lineDiff(string(want), got))
			}
		})
	}
	m := New(Options{})
	defer m.Close()
	covered["smart-approve"] = true
	for _, sc := range m.Scenarios() {
		if !covered[sc.Name] {
			t.Errorf("built-in scenario %s has no golden trace", sc.Name)
		}
		if sc.Description == "" || sc.Usage == "" {
			t.Errorf("built-in scenario %s has no description or usage", sc.Name)
		}
	}
}

func playTrace(t *testing.T, c goldenCase) string {
	t.Helper()
	c.opts.AllowAllUsers = true
	m := New(c.opts)
	deterministic(m)
	tr := &tracer{t: t, m: m, answer: c.answer, stopAt: c.stopAt}
	m.Attach(tr)
	defer m.Close()
	if err := m.LoadScriptBytes("smart-approve.yaml", []byte(smartApprove)); err != nil {
		t.Fatal(err)
	}
	if len(c.messages) > 0 {
		playMessages(t, m, tr, c.messages)
		return tr.trace()
	}
	text := strings.TrimSpace("/mock " + c.scenario + " " + strings.Join(c.args, " "))
	pb, err := m.PlayWith(context.Background(), c.scenario, c.args, "chat-1", PlayOptions{Text: text, SenderID: "device-1"})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pb)
	if c.until != "" {
		deadline := time.Now().Add(hangGuard)
		for tr.count(c.until) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("no %s after the turn", c.until)
			}
			time.Sleep(time.Millisecond)
		}
	}
	return tr.trace()
}

// playMessages hands each text to handle_message as the phone's message in
// chat-1 and waits for the reply it brings through send() before the next.
func playMessages(t *testing.T, m *Mock, tr *tracer, texts []string) {
	t.Helper()
	for _, text := range texts {
		before := tr.count("send")
		ev := hermes.MessageEvent{Text: text, MessageType: "text", MessageID: "m-" + text,
			Source: hermes.SessionSource{Platform: hermes.Platform, ChatID: "chat-1", ChatType: "dm", UserID: "device-1"}}
		if err := m.HandleMessage(context.Background(), ev); err != nil {
			t.Fatalf("handle_message %q: %v", text, err)
		}
		deadline := time.Now().Add(hangGuard)
		for tr.count("send") == before {
			if time.Now().After(deadline) {
				t.Fatalf("no reply through send() after %q", text)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// smartApprove is a smart approval the auxiliary model grants: its own
// pair, surface "smart", and no prompt.
const smartApprove = `name: smart-approve
steps:
  - stream: "Listing the build tree."
  - approval:
      command: "ls -R ./build"
      smart: approve
    granted: [{stream: "Listed."}]
`

// lineDiff shows the first differing lines of two traces.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n want %s\n  got %s", i+1, a, b)
		}
	}
	return "(same lines)"
}

// checkHookKwargs fails unless a hook carries exactly Hermes' kwargs for
// it (the required ones, optional ones only where Hermes adds them, and
// telemetry_schema_version on stream hooks), with Hermes' types.
func checkHookKwargs(t *testing.T, name string, kw map[string]any) {
	t.Helper()
	h, ok := hermes.HookByName(name)
	if !ok {
		t.Errorf("the mock fired %s, which is not one of Hermes' hooks it fires", name)
		return
	}
	if err := hermes.CheckHook(name, kw); err != nil {
		t.Error(err)
	}
	var missing, extra []string
	for _, k := range h.Kwargs {
		if _, ok := kw[k.Name]; !ok {
			missing = append(missing, k.Name)
		}
	}
	for k := range kw {
		if _, ok := h.Kwarg(k); !ok {
			extra = append(extra, k)
		}
	}
	if h.Stream && kw["telemetry_schema_version"] != TelemetrySchemaVersion {
		t.Errorf("%s: telemetry_schema_version = %#v, want %q", name, kw["telemetry_schema_version"], TelemetrySchemaVersion)
	}
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%s: missing kwargs %v, unknown kwargs %v", name, missing, extra)
	}
	if slices.Contains([]string{"on_stream_start", "on_stream_delta", "on_stream_end", "on_interim_message"}, name) && !h.Stream {
		t.Errorf("%s is a stream hook", name)
	}
	if name == "pre_llm_call" { // turn_context.py: is_first_turn = not conversation_history
		history, _ := kw["conversation_history"].([]any)
		if first, _ := kw["is_first_turn"].(bool); first != (len(history) == 0) {
			t.Errorf("pre_llm_call: is_first_turn = %v with %d messages of conversation_history; Hermes sets it exactly when the history is empty", first, len(history))
		}
	}
}
