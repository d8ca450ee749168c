package mockhermes

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// TestSessionStoreIsBounded: past its cap the store forgets its oldest
// sessions, and a chat whose current session goes is forgotten with it,
// grants included; a chat with a turn playing keeps its session (and the
// store stays over the cap) until the turn is over. list_sessions_rich
// pages what is kept, newest first.
func TestSessionStoreIsBounded(t *testing.T) {
	m := New(Options{})
	defer m.Close()
	m.sessionCap = 3
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	m.clock = func() time.Time { at = at.Add(time.Second); return at }
	open := func(chat string) *chat {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.chatLocked(chat)
	}
	kept := func() (rows, chats []string) {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, r := range m.byStart {
			rows = append(rows, r.row.Origin.ChatID)
		}
		for id := range m.chats {
			chats = append(chats, id)
		}
		slices.Sort(chats)
		return rows, chats
	}

	busy := open("c1")
	oldSession := busy.sessionID
	m.mu.Lock()
	busy.cur = &Playback{} // a turn playing in c1
	m.mu.Unlock()
	c0 := open("c0")
	m.mu.Lock()
	m.grantedSession[c0.key] = map[string]bool{"rm": true}
	m.mu.Unlock()
	for i := 2; i <= 4; i++ {
		open(fmt.Sprint("c", i))
	}
	// c1 is the oldest but busy: kept, and with it everything newer.
	if rows, chats := kept(); !slices.Equal(rows, []string{"c1", "c0", "c2", "c3", "c4"}) {
		t.Fatalf("with c1 busy: rows %v, chats %v, want every row", rows, chats)
	}

	m.mu.Lock()
	busy.cur = nil // the turn is over
	m.mu.Unlock()
	open("c5")
	rows, chats := kept()
	if !slices.Equal(rows, []string{"c3", "c4", "c5"}) || !slices.Equal(chats, []string{"c3", "c4", "c5"}) {
		t.Fatalf("after c1's turn: rows %v, chats %v, want c3 c4 c5", rows, chats)
	}
	m.mu.Lock()
	_, granted := m.grantedSession[c0.key]
	m.mu.Unlock()
	if granted {
		t.Error("c0's session grants outlived c0")
	}
	page, err := m.ListSessions(context.Background(), hermes.ListSessionsOptions{Source: hermes.Platform, Limit: 10})
	if err != nil || len(page) != 3 || page[0].Origin.ChatID != "c5" || page[2].Origin.ChatID != "c3" {
		t.Fatalf("list_sessions_rich: %+v, %v", page, err)
	}
	// A forgotten chat that speaks again starts over in a new session.
	if again := open("c1"); again.sessionID == oldSession || again == busy {
		t.Errorf("c1 came back in its old session %s", again.sessionID)
	}
}
