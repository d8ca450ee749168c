package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// FuzzEventLog drives the replay buffer (E-5, E-6) with a sequence of
// operations and checks it against a model: the list of every event ever
// added, of which the last `window` are held. Each byte of ops is one
// operation: an even byte adds an event, an odd one asks for the events
// after an index b/2 below the newest.
func FuzzEventLog(f *testing.F) {
	f.Add(uint8(4), int64(0), []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 3, 7, 9})
	f.Add(uint8(1), int64(1000), []byte{0, 1, 3, 0, 0, 5})
	f.Add(uint8(16), int64(0), []byte{1, 0, 1})
	f.Fuzz(func(t *testing.T, window uint8, start int64, ops []byte) {
		w := int(window%32) + 1
		if start < 0 || start > 1<<40 {
			start = 0
		}
		log := newEventLog(w, start)
		var model []int64 // global indices of every added event
		last := start
		for _, op := range ops {
			if op%2 == 0 {
				e := testEvent("notification", time.Unix(0, 0), nil, nil, json.RawMessage(`{}`))
				log.add(e)
				last++
				model = append(model, last)
				if e.g != last {
					t.Fatalf("added event has index %d, want %d", e.g, last)
				}
				continue
			}
			after := last - int64(op/2)
			held := model[max(0, len(model)-w):]
			oldest := last + 1
			if len(held) > 0 {
				oldest = held[0]
			}
			// E-6: the answer is complete only when nothing after `after`
			// has been dropped from the window.
			wantComplete := after+1 >= oldest
			var want []int64
			for _, g := range held {
				if g > after {
					want = append(want, g)
				}
			}
			evs, complete := log.since(after)
			var got []int64
			for _, e := range evs {
				got = append(got, e.g)
			}
			if complete != wantComplete || !slices.Equal(got, want) {
				t.Fatalf("window %d, last %d: since(%d) = %v complete %v; want %v complete %v", w, last, after, got, complete, want, wantComplete)
			}
		}
	})
}

// FuzzIdemWindow drives the request_id window (I-1) with a sequence of
// request ids and checks it against a model: a request is new exactly when
// its id is not among the window's last `max` distinct ids, and a repeat
// gets the same entry, hence the same result, as the first.
func FuzzIdemWindow(f *testing.F) {
	f.Add(uint8(3), []byte("abcabcdeaa"))
	f.Add(uint8(1), []byte("aab"))
	f.Add(uint8(255), []byte("zzzz"))
	f.Fuzz(func(t *testing.T, size uint8, ids []byte) {
		n := int(size%16) + 1
		w := newIdemWindow(n)
		var order []string // model: the last n distinct ids, oldest first
		entries := map[string]*idemEntry{}
		for _, b := range ids {
			id := string(rune('a' + b%8))
			e, first := w.begin(id)
			wantFirst := !slices.Contains(order, id)
			if first != wantFirst {
				t.Fatalf("window %d after %v: begin(%q) first = %v, want %v", n, order, id, first, wantFirst)
			}
			if first {
				e.finish(scoped{})
				entries[id] = e
				order = append(order, id)
				if len(order) > n {
					order = order[1:]
				}
			} else if entries[id] != e {
				t.Fatalf("a repeated request_id %q got another entry than the first (I-1)", id)
			}
		}
	})
}

// approvalHermes is the Hermes side of FuzzApprovalResolve, kept as small
// as tools/approval.py: a FIFO of pending request ids per session key;
// resolving one fires post_approval_response with the kwargs Hermes sends
// (the session key and the choice, no request id) before it returns.
type approvalHermes struct {
	hermes.Hermes // unused methods
	s             *Server
	pending       map[string][]string // session key → pending request ids, oldest first
	fail          bool                // the next call fails (hermes_unavailable)
}

// GetSession finds no row: the fuzzed hooks link their sessions by key.
func (h *approvalHermes) GetSession(context.Context, string) (hermes.SessionRow, bool, error) {
	return hermes.SessionRow{}, false, nil
}

func (h *approvalHermes) ResolveGatewayApproval(ctx context.Context, key, choice string, all bool, reason, id string) (int, error) {
	if h.fail {
		h.fail = false
		return 0, errors.New("gateway down")
	}
	q := h.pending[key]
	i := slices.Index(q, id)
	if i < 0 {
		return 0, nil
	}
	h.pending[key] = slices.Delete(q, i, i+1)
	h.s.Hook(ctx, "post_approval_response", map[string]any{"session_key": key, "choice": choice, "surface": "gateway"})
	return 1, nil
}

// timeout ends the session's oldest pending approval the way Hermes does
// when its wait runs out.
func (h *approvalHermes) timeout(ctx context.Context, key string) (string, bool) {
	q := h.pending[key]
	if len(q) == 0 {
		return "", false
	}
	h.pending[key] = q[1:]
	h.s.Hook(ctx, "post_approval_response", map[string]any{"session_key": key, "choice": "timeout", "surface": "gateway"})
	return q[0], true
}

// FuzzApprovalResolve drives approval resolution (M-2, M-3, I-2, H-3, H-5)
// with a sequence of operations and checks it against a model of each
// approval: pending in Hermes, claimed, announced (with which choice and
// decided_by). Each byte of ops is one operation, chosen by its low 2 bits:
// Hermes asks for an approval; a device resolves one (or an unknown id);
// Hermes times a session's oldest approval out; the next Hermes call
// fails. After every operation each approval must have been announced by
// exactly the approval.resolved events the model expects, and every
// resolve must get the answer the model expects.
func FuzzApprovalResolve(f *testing.F) {
	f.Add([]byte{0, 1, 1})                // ask, resolve, resolve again: ack then already_resolved
	f.Add([]byte{0, 3, 1, 1, 2})          // a failed Hermes call leaves the approval resolvable
	f.Add([]byte{0, 2, 1, 5})             // timed out, then resolved: already_resolved; unknown id
	f.Add([]byte{0, 4, 0x21, 0x25, 2, 6}) // two sessions
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		h := &approvalHermes{pending: map[string][]string{}}
		s, err := New(Config{Name: "fuzz", DataDir: t.TempDir(), Hermes: h})
		if err != nil {
			t.Fatal(err)
		}
		h.s = s
		defer s.Shutdown(context.Background())
		ctx := context.Background()

		type model struct {
			id, key            string
			claimed, announced bool
			choice, decidedBy  string
		}
		var as []*model
		choices := []string{lmp.ChoiceOnce, lmp.ChoiceSession, lmp.ChoiceAlways, lmp.ChoiceDeny}
		for step, op := range ops {
			arg := int(op >> 2)
			switch op % 4 {
			case 0: // Hermes asks (H-3)
				m := &model{id: fmt.Sprintf("req_%d", step), key: hermes.SessionKeyPrefix + fmt.Sprint("c", arg%2)}
				h.pending[m.key] = append(h.pending[m.key], m.id)
				if err := s.SendExecApprovalPrompt(ctx, hermes.ExecApprovalPrompt{ChatID: "c" + fmt.Sprint(arg%2), Command: "rm -rf x", SessionKey: m.key, RequestID: m.id}); err != nil {
					t.Fatal(err)
				}
				as = append(as, m)
			case 1: // a device resolves approval arg (one past the last: an unknown id)
				id, choice := "req_unknown", choices[arg%len(choices)]
				var m *model
				if i := arg % (len(as) + 1); i < len(as) {
					m = as[i]
					id = m.id
				}
				failing := h.fail
				res := s.resolveApproval(ctx, fmt.Sprint("dev_", arg%3), lmp.ApprovalResolve{ApprovalID: id, Choice: choice, RequestID: fmt.Sprint("r", step)})
				var want string // error code, "" for an ack
				switch {
				case m == nil:
					want = lmp.CodeUnknownApproval
				case m.claimed || m.announced:
					want = lmp.CodeAlreadyResolved // I-2
				case failing:
					want = lmp.CodeHermesUnavailable
				default:
					m.claimed, m.announced, m.choice, m.decidedBy = true, true, choice, lmp.DecidedByRemote
				}
				if got := resultCode(t, res); got != want {
					t.Fatalf("op %d: approval.resolve %s (%s) answered %q, want %q\n%s", step, id, choice, got, want, res.payload)
				}
			case 2: // Hermes times out the session's oldest pending approval
				id, ok := h.timeout(ctx, hermes.SessionKeyPrefix+fmt.Sprint("c", arg%2))
				if !ok {
					break
				}
				for _, m := range as {
					if m.id == id && !m.announced {
						m.announced, m.choice, m.decidedBy = true, "timeout", lmp.DecidedByTimeout
					}
				}
			case 3:
				h.fail = true
			}
			// M-3: each approval is announced once, as the model says.
			got := resolvedEvents(t, s)
			for _, m := range as {
				evs := got[m.id]
				switch {
				case !m.announced && len(evs) > 0:
					t.Fatalf("op %d: %s announced %+v, but it is still pending", step, m.id, evs)
				case m.announced && (len(evs) != 1 || evs[0].Choice != m.choice || evs[0].DecidedBy != m.decidedBy):
					t.Fatalf("op %d: %s announced %+v, want once with %s by %s", step, m.id, evs, m.choice, m.decidedBy)
				}
			}
		}
	})
}

// resultCode is the error code of a command's result, "" for an ack.
func resultCode(t *testing.T, res scoped) string {
	t.Helper()
	if res.typ == lmp.TypeAck {
		return ""
	}
	var e lmp.Error
	if err := json.Unmarshal(res.payload, &e); err != nil || res.typ != lmp.TypeError {
		t.Fatalf("result %s %s", res.typ, res.payload)
	}
	return e.Code
}

// resolvedEvents returns the approval.resolved events in the log, by
// approval_id.
func resolvedEvents(t *testing.T, s *Server) map[string][]lmp.ApprovalResolved {
	t.Helper()
	s.mu.Lock()
	evs, _ := s.events.since(0)
	s.mu.Unlock()
	out := map[string][]lmp.ApprovalResolved{}
	for _, e := range evs {
		if e.typ != lmp.TypeApprovalResolved {
			continue
		}
		var fr lmp.Frame
		if err := json.Unmarshal(e.appendTo(nil, 0), &fr); err != nil {
			t.Fatal(err)
		}
		var p lmp.ApprovalResolved
		if err := json.Unmarshal(fr.Payload, &p); err != nil {
			t.Fatal(err)
		}
		out[p.ApprovalID] = append(out[p.ApprovalID], p)
	}
	return out
}
