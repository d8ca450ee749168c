package mockhermes

import (
	"context"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// defaultListLimit is list_sessions_rich's default limit.
const defaultListLimit = 20

// previewMax is the length of a session preview, in characters.
const previewMax = 60

// chat is one Loomi DM chat as the gateway keeps it (gateway/session.py):
// its chat id, its session key, the session-store row it currently runs
// in, and the turns playing or waiting in it. Three different strings: the
// chat id is the adapter's, the key is derived from it, and the session id
// changes on /new.
type chat struct {
	id        string
	key       string
	sessionID string
	turns     int         // in the current session, for is_first_turn
	history   history     // conversation_history of the current session
	cur       *Playback   // running, nil when idle
	queue     []*Playback // waiting behind it
}

// sessionRow is a row of hermes_state's sessions table.
type sessionRow struct {
	row hermes.SessionRow
}

// newSessionID returns a session-store id like Hermes': the start time and
// eight hex digits, 20261201_101500_ab12cd34.
func (m *Mock) newSessionID() string {
	var b [4]byte
	m.random(b[:])
	return m.now().UTC().Format("20060102_150405") + "_" + hex.EncodeToString(b[:])
}

// chatLocked returns the chat, creating it and its first session when new.
func (m *Mock) chatLocked(chatID string) *chat {
	c := m.chats[chatID]
	if c == nil {
		c = &chat{id: chatID, key: m.sessionKey(chatID)}
		m.chats[chatID] = c
	}
	if c.sessionID == "" {
		c.sessionID = m.newSessionID()
	}
	m.chatRowLocked(c)
	return c
}

// chatRowLocked returns the row of the chat's current session, which
// records the chat as its origin, as the gateway's sessions do.
func (m *Mock) chatRowLocked(c *chat) *sessionRow {
	r := m.rowLocked(c.sessionID, hermes.Platform)
	if r.row.Origin.ChatID == "" {
		r.row.Origin = hermes.SessionOrigin{Platform: hermes.Platform, ChatID: c.id, ChatType: "dm"}
	}
	return r
}

// rowLocked returns the session row id, creating it when new.
func (m *Mock) rowLocked(id, source string) *sessionRow {
	r := m.rows[id]
	if r == nil {
		now := m.now().UTC()
		r = &sessionRow{row: hermes.SessionRow{ID: id, Source: source, Model: DefaultModel, StartedAt: now, LastActive: now}}
		m.rows[id] = r
		// A row's start and id never change: its place is kept from
		// here on. A new row is almost always the newest, at the end.
		i, _ := slices.BinarySearchFunc(m.byStart, r, sessionOrder)
		m.byStart = slices.Insert(m.byStart, i, r)
		m.forgetOldestLocked(r)
	}
	return r
}

// maxSessions bounds the mock's session store. Hermes keeps every session
// on disk; the mock keeps them in memory, with each chat's history, and a
// fuzz campaign starts thousands a minute: without a bound a long campaign
// grows the server without end. list_sessions_rich reads from the newest,
// and task.list asks for 200 at most.
const maxSessions = 10000

// forgetOldestLocked drops the oldest rows while the store holds more than
// m.sessionCap, never kept, the row just made. A chat whose current
// session goes is forgotten with it, and starts over in a new session if
// it speaks again. A chat with a turn playing or waiting keeps its session
// and everything newer: the store shrinks once the turn is over.
func (m *Mock) forgetOldestLocked(kept *sessionRow) {
	for len(m.byStart) > m.sessionCap {
		r := m.byStart[0]
		if r == kept {
			return
		}
		if o := r.row.Origin; o.ChatID != "" {
			if c := m.chats[o.ChatID]; c != nil && c.sessionID == r.row.ID {
				if c.cur != nil || len(c.queue) > 0 || len(m.approvals[c.key]) > 0 {
					return
				}
				delete(m.chats, c.id)
				delete(m.grantedSession, c.key)
			}
		}
		delete(m.rows, r.row.ID)
		m.byStart[0] = nil
		m.byStart = m.byStart[1:]
	}
}

// sessionOrder orders rows oldest first, by start and then by id.
func sessionOrder(a, b *sessionRow) int {
	if c := a.row.StartedAt.Compare(b.row.StartedAt); c != 0 {
		return c
	}
	return strings.Compare(a.row.ID, b.row.ID)
}

// userMessage records a user message in the chat's current session.
func (m *Mock) userMessageLocked(c *chat, text string) {
	r := m.chatRowLocked(c)
	if r.row.Preview == "" {
		r.row.Preview = truncateRunes(text, previewMax)
	}
	r.row.MessageCount++
	r.row.LastActive = m.now().UTC()
	c.history.add("user", text)
}

// assistantMessage records a turn's final reply in session id.
func (m *Mock) assistantMessage(chatID, sessionID, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.rows[sessionID]; r != nil {
		r.row.MessageCount++
		r.row.LastActive = m.now().UTC()
	}
	if c := m.chats[chatID]; c != nil && c.sessionID == sessionID {
		c.history.add("assistant", text)
	}
}

// rollover ends the chat's session and starts a new one, as /new does.
func (m *Mock) rolloverLocked(c *chat) {
	if r := m.rows[c.sessionID]; r != nil && r.row.EndedAt == nil {
		t := m.now().UTC()
		r.row.EndedAt = &t
	}
	c.sessionID = m.newSessionID()
	c.turns, c.history = 0, history{}
	m.chatRowLocked(c)
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// SessionSeed is a row to add to the session store, or to update. A row
// with a ParentSessionID (a subagent's) or a bg_ id (a /background run's)
// names the chat as its origin without becoming the chat's session.
type SessionSeed struct {
	// ChatID links the row to a Loomi chat: the chat's turns run in it from
	// now on. Empty for a row of no chat.
	ChatID string
	// ID is the session id; empty means the chat's current one, or a new
	// one.
	ID                    string
	Source                string // default "loomi"
	Title, Model, Preview string
	Ended                 bool
	// ParentSessionID makes the row a subagent's session.
	ParentSessionID string
}

// SeedSession adds or updates a row in the session store and returns its
// id; with a chat it becomes that chat's current session.
func (m *Mock) SeedSession(s SessionSeed) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.Source == "" {
		s.Source = hermes.Platform
	}
	id := s.ID
	if s.ChatID != "" {
		c := m.chats[s.ChatID]
		if c == nil {
			c = &chat{id: s.ChatID, key: m.sessionKey(s.ChatID)}
			m.chats[s.ChatID] = c
		}
		if id == "" {
			id = c.sessionID
		}
		if id == "" {
			id = m.newSessionID()
		}
		// A subagent's or a /background run's session records the chat as
		// its origin but never becomes the chat's session.
		detached := s.ParentSessionID != "" || strings.HasPrefix(id, hermes.BackgroundSessionPrefix)
		if c.sessionID != id && !detached {
			c.sessionID, c.turns, c.history = id, 0, history{}
		}
	}
	if id == "" {
		id = m.newSessionID()
	}
	r := m.rowLocked(id, s.Source)
	r.row.Source = s.Source
	if s.ChatID != "" {
		r.row.Origin = hermes.SessionOrigin{Platform: s.Source, ChatID: s.ChatID, ChatType: "dm"}
	}
	r.row.ParentSessionID = s.ParentSessionID
	if s.Title != "" {
		r.row.Title = s.Title
	}
	if s.Model != "" {
		r.row.Model = s.Model
	}
	if s.Preview != "" {
		r.row.Preview = truncateRunes(s.Preview, previewMax)
	}
	if s.Ended && r.row.EndedAt == nil {
		t := m.now().UTC()
		r.row.EndedAt = &t
	}
	return id
}

// SessionOf returns the chat's current session id, "" for a chat Hermes
// has not seen.
func (m *Mock) SessionOf(chatID string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.chats[chatID]; c != nil {
		return c.sessionID
	}
	return ""
}

// ListSessions is the session store's list_sessions_rich (F-9): read-only,
// rows of every platform unless opts.Source is given, newest started_at
// first, with preview and last_active.
func (m *Mock) ListSessions(ctx context.Context, opts hermes.ListSessionsOptions) ([]hermes.SessionRow, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = defaultListLimit
	}
	offset := max(opts.Offset, 0)
	m.mu.Lock()
	// Newest first, walking the rows in their order from the end: the
	// store holds every session of the mock's life, and task.list asks
	// for the first few.
	page := make([]*sessionRow, 0, min(limit, len(m.byStart)))
	skipped := 0 // offset, or the rows there are when fewer
	for i := len(m.byStart) - 1; i >= 0 && len(page) < limit; i-- {
		s := m.byStart[i]
		if (opts.Source != "" && s.row.Source != opts.Source) || s.row.ParentSessionID != "" {
			continue // another platform's, or a subagent's (include_children=False)
		}
		if skipped < offset {
			skipped++
			continue
		}
		page = append(page, s)
	}
	offset = skipped
	rows := make([]hermes.SessionRow, len(page))
	for i, s := range page {
		rows[i] = s.row
		if s.row.EndedAt != nil {
			t := *s.row.EndedAt
			rows[i].EndedAt = &t
		}
	}
	m.mu.Unlock()
	m.rec.add("list_sessions_rich", map[string]any{
		"source": none(opts.Source), "limit": limit, "offset": offset,
	}, len(rows))
	return rows, nil
}

// GetSession is the session store's get_session: one row by id, with its
// origin. Read-only.
func (m *Mock) GetSession(ctx context.Context, sessionID string) (hermes.SessionRow, bool, error) {
	m.mu.Lock()
	s, ok := m.rows[sessionID]
	var r hermes.SessionRow
	if ok {
		r = s.row
		if r.EndedAt != nil {
			t := *r.EndedAt
			r.EndedAt = &t
		}
	}
	m.mu.Unlock()
	m.rec.add("get_session", map[string]any{"session_id": sessionID}, ok)
	return r, ok, nil
}

// now is the mock's clock.
func (m *Mock) now() time.Time {
	if m.clock != nil {
		return m.clock()
	}
	return time.Now()
}
