package mockhermes

import (
	"context"
	"sort"
	"time"

	"github.com/loomi-lmp/lmpkit/server"
)

// defaultListLimit is list_sessions_rich's default limit.
const defaultListLimit = 20

// previewMax is the length of a session preview, in characters.
const previewMax = 60

// session is one row of the session store plus the chat's play queue.
type session struct {
	row   server.SessionRow
	queue []*Playback // waiting behind the running one
	cur   *Playback   // running, nil when idle
}

// touchSession returns the chat's session, creating its row when new, and
// counts userText as a message when it is not empty. Callers must not hold
// m.mu.
func (m *Mock) touchSession(chatID, userText string) *session {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.touchSessionLocked(chatID, userText)
}

func (m *Mock) touchSessionLocked(chatID, userText string) *session {
	now := time.Now().UTC()
	s := m.sessions[chatID]
	if s == nil {
		s = &session{row: server.SessionRow{
			ID: chatID, Source: Platform, Model: DefaultModel,
			StartedAt: now, LastActive: now,
		}}
		m.sessions[chatID] = s
	}
	if userText != "" {
		if s.row.Preview == "" {
			s.row.Preview = truncateRunes(userText, previewMax)
		}
		s.row.MessageCount++
		s.row.LastActive = now
	}
	return s
}

// countReply records an assistant message in the chat's session.
func (m *Mock) countReply(chatID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sessions[chatID]; s != nil {
		s.row.MessageCount++
		s.row.LastActive = time.Now().UTC()
	}
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// SeedSession adds or updates a row in the session store, for task.list
// tests. An empty id is generated; it returns the id.
func (m *Mock) SeedSession(id, title, model, preview string, ended bool) string {
	if id == "" {
		id = newID("task_")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.touchSessionLocked(id, "")
	if title != "" {
		s.row.Title = title
	}
	if model != "" {
		s.row.Model = model
	}
	if preview != "" {
		s.row.Preview = truncateRunes(preview, previewMax)
	}
	if ended && s.row.EndedAt == nil {
		t := time.Now().UTC()
		s.row.EndedAt = &t
	}
	return id
}

// ListSessions is the session store's list_sessions_rich (F-9): read-only,
// most recently active first.
func (m *Mock) ListSessions(ctx context.Context, opts server.ListSessionsOptions) ([]server.SessionRow, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = defaultListLimit
	}
	offset := max(opts.Offset, 0)
	m.mu.Lock()
	rows := make([]server.SessionRow, 0, len(m.sessions))
	for _, s := range m.sessions {
		if opts.Source != "" && s.row.Source != opts.Source {
			continue
		}
		r := s.row
		if r.EndedAt != nil {
			t := *r.EndedAt
			r.EndedAt = &t
		}
		rows = append(rows, r)
	}
	m.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].LastActive.Equal(rows[j].LastActive) {
			return rows[i].LastActive.After(rows[j].LastActive)
		}
		return rows[i].ID < rows[j].ID
	})
	if offset > len(rows) {
		offset = len(rows)
	}
	rows = rows[offset:min(len(rows), offset+limit)]
	m.rec.add("list_sessions_rich", map[string]any{
		"source": none(opts.Source), "limit": limit, "offset": offset,
	}, len(rows))
	return rows, nil
}
