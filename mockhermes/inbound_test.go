package mockhermes

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
)

func msg(chat, text string) hermes.MessageEvent {
	return hermes.MessageEvent{
		Text: text, MessageType: "text", MessageID: "m1", Timestamp: time.Unix(1759123456, 0),
		Source: hermes.SessionSource{Platform: "loomi", ChatID: chat, ChatType: "dm", UserID: "dev_1", UserName: "Pixel"},
	}
}

func TestHandleMessagePlaysMockCommands(t *testing.T) {
	m, f := newTestMock(t, Options{BusyInputMode: BusyQueue})
	ctx := context.Background()
	if err := m.HandleMessage(ctx, msg("t1", "/mock help")); err != nil {
		t.Fatal(err)
	}
	evs := f.waitFor(t, "help", func(evs []event) bool { return count(evs, "send") == 1 })
	for _, name := range m.ScenarioNames() {
		if !strings.Contains(evs[0].Text, "- "+name) {
			t.Fatalf("help lacks %s: %q", name, evs[0].Text)
		}
	}
	if !strings.Contains(evs[0].Text, "burst [count] [interval]") || evs[0].ChatID != "t1" {
		t.Fatalf("help = %q", evs[0].Text)
	}

	if err := m.HandleMessage(ctx, msg("t1", "/mock nosuch 1")); err != nil {
		t.Fatal(err)
	}
	evs = f.waitFor(t, "unknown", func(evs []event) bool { return count(evs, "send") == 2 })
	if txt := evs[len(evs)-1].Text; !strings.Contains(txt, `unknown scenario "nosuch"`) || !strings.Contains(txt, "- reply") {
		t.Fatalf("unknown answer = %q", txt)
	}
	if err := m.HandleMessage(ctx, msg("t1", "/mock burst 100001")); err != nil {
		t.Fatal(err)
	}
	evs = f.waitFor(t, "limit", func(evs []event) bool { return count(evs, "send") == 3 })
	if txt := evs[len(evs)-1].Text; !strings.Contains(txt, "at most 100000") {
		t.Fatalf("limit answer = %q", txt)
	}

	if err := m.HandleMessage(ctx, msg("t1", "/mock burst 3")); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "burst", func(evs []event) bool { return count(evs, "send") == 6 })

	// Any other text plays reply, echoing it; a busy chat queues in queue mode.
	if err := m.HandleMessage(ctx, msg("t1", "hello mock")); err != nil {
		t.Fatal(err)
	}
	if err := m.HandleMessage(ctx, msg("t1", "/mock fail")); err != nil {
		t.Fatal(err)
	}
	evs = f.waitFor(t, "both turns", func(evs []event) bool { return count(evs, "on_session_end") == 2 })
	var ends []event
	for _, e := range evs {
		if e.Name == "on_stream_end" {
			ends = append(ends, e)
		}
	}
	if !strings.Contains(ends[0].Kwargs["final_text"].(string), "You said: hello mock") || ends[1].Kwargs["error"] == nil {
		t.Fatalf("ends = %v / %v", ends[0].Kwargs, ends[1].Kwargs)
	}

	calls := m.Calls()
	if len(calls) != 6 {
		t.Fatalf("calls = %d", len(calls))
	}
	ev := calls[4].Args["event"].(map[string]any)
	src := ev["source"].(map[string]any)
	if calls[4].Name != "handle_message" || ev["text"] != "hello mock" || ev["message_type"] != "text" ||
		src["chat_id"] != "t1" || src["user_id"] != "dev_1" || ev["timestamp"] != 1759123456.0 {
		t.Fatalf("recorded handle_message = %+v", calls[4])
	}
}

func TestHandleMessageNeedsChat(t *testing.T) {
	m, _ := newTestMock(t, Options{})
	if err := m.HandleMessage(context.Background(), msg("", "hi")); err == nil {
		t.Fatal("event without chat accepted")
	}
}

func TestListSessions(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	long := strings.Repeat("é", 70)
	if err := m.HandleMessage(ctx, msg("a", long)); err != nil {
		t.Fatal(err)
	}
	f.waitHook(t, "on_stream_end", 1)
	ended := m.SeedSession(SessionSeed{Title: "Old task", Model: "gpt-x", Preview: "earlier", Ended: true})
	m.SeedSession(SessionSeed{ID: "tg1", Source: "telegram", Title: "On Telegram"})
	rows, err := m.ListSessions(ctx, hermes.ListSessionsOptions{})
	if err != nil || len(rows) != 3 {
		t.Fatalf("rows = %v, %v", rows, err)
	}
	byID := map[string]hermes.SessionRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	a := byID[m.SessionOf("a")]
	if a.ID == "a" || !sessionIDPattern.MatchString(a.ID) {
		t.Fatalf("the chat's session id %q is the chat id or not a session-store id", a.ID)
	}
	if a.EndedAt != nil || a.Preview != strings.Repeat("é", 60) || a.Source != "loomi" || a.MessageCount < 1 {
		t.Fatalf("row a = %+v", a)
	}
	if o := byID[ended]; o.EndedAt == nil || o.Title != "Old task" || o.Model != "gpt-x" {
		t.Fatalf("seeded row = %+v", o)
	}
	if rows, _ := m.ListSessions(ctx, hermes.ListSessionsOptions{Limit: 1, Offset: 1}); len(rows) != 1 {
		t.Fatalf("limit/offset rows = %d", len(rows))
	}
	if rows, _ := m.ListSessions(ctx, hermes.ListSessionsOptions{Offset: 5}); len(rows) != 0 {
		t.Fatalf("offset past end rows = %d", len(rows))
	}
	if rows, _ := m.ListSessions(ctx, hermes.ListSessionsOptions{Source: "telegram"}); len(rows) != 1 || rows[0].ID != "tg1" {
		t.Fatalf("source filter rows = %d", len(rows))
	}
	var lists int
	for _, c := range m.Calls() {
		if c.Name == "list_sessions_rich" {
			lists++
		}
	}
	if lists != 4 {
		t.Fatalf("recorded %d list_sessions_rich", lists)
	}
}

// The suites make each message unique with words after "/mock help": it
// must still answer with help and start no turn, as must a bare "/mock".
func TestMockHelpIgnoresTrailingWords(t *testing.T) {
	m, f := newTestMock(t, Options{})
	ctx := context.Background()
	for _, text := range []string{"/mock help 7f3a-1", "/mock"} {
		if err := m.HandleMessage(ctx, msg("t2", text)); err != nil {
			t.Fatal(err)
		}
	}
	evs := f.waitFor(t, "two help answers", func(evs []event) bool { return count(evs, "send") == 2 })
	for _, e := range evs {
		if e.Kind != "send" || !strings.HasPrefix(e.Text, "Mock Hermes scenarios") || e.ChatID != "t2" {
			t.Fatalf("answer to a help request: %+v", e)
		}
	}
	if pb := m.current("t2"); pb != nil {
		t.Fatalf("help started a playback of %s", pb.sc.Name)
	}
}
