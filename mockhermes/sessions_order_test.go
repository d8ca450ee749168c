package mockhermes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
)

// TestListSessionsPagesNewestFirst: list_sessions_rich pages the rows
// newest first (ties by id, descending), skipping other sources and
// subagents' sessions, whatever order the rows were created in; the
// pages are those of a full sort of the store.
func TestListSessionsPagesNewestFirst(t *testing.T) {
	m := New(Options{})
	defer m.Close()
	base := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var at time.Time
	m.clock = func() time.Time { return at }
	r := rand.New(rand.NewPCG(2, 25))
	for i := range 300 {
		at = base.Add(time.Duration(r.IntN(40)) * time.Second) // out of order, with ties
		seed := SessionSeed{ID: fmt.Sprintf("s%03d", r.IntN(1000)), Source: "loomi"}
		switch r.IntN(6) {
		case 0:
			seed.Source = "telegram"
		case 1:
			seed.ParentSessionID = "s000"
		}
		if i%50 == 0 {
			seed.ID = "" // a generated id
		}
		m.SeedSession(seed)
	}

	// The reference: every row of the store, sorted.
	m.mu.Lock()
	var all []hermes.SessionRow
	for _, s := range m.rows {
		all = append(all, s.row)
	}
	m.mu.Unlock()
	slices.SortFunc(all, func(a, b hermes.SessionRow) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	for _, source := range []string{"", "loomi", "telegram"} {
		var want []string
		for _, row := range all {
			if (source == "" || row.Source == source) && row.ParentSessionID == "" {
				want = append(want, row.ID)
			}
		}
		for _, page := range []struct{ limit, offset int }{{0, 0}, {5, 0}, {7, 3}, {1000, 0}, {10, len(want) - 4}, {10, len(want) + 5}} {
			rows, err := m.ListSessions(context.Background(), hermes.ListSessionsOptions{Source: source, Limit: page.limit, Offset: page.offset})
			if err != nil {
				t.Fatal(err)
			}
			limit := page.limit
			if limit <= 0 {
				limit = defaultListLimit
			}
			from := min(page.offset, len(want))
			exp := want[from:min(len(want), from+limit)]
			var got []string
			for _, row := range rows {
				got = append(got, row.ID)
			}
			if !slices.Equal(got, exp) {
				t.Fatalf("source %q, limit %d, offset %d: got %v, want %v", source, page.limit, page.offset, got, exp)
			}
		}
	}
}
