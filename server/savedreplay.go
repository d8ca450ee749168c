package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server/store"
)

// The replay buffer across a clean restart (note 4): Shutdown saves the
// events the log holds, and New loads them back, so that a device that
// reconnects with last_seq after a clean restart gets its gap re-sent
// with the same seq and content (E-5, E-7) and truncated: false.
//
// Each event is saved as the frame the global numbering renders (seq and
// event_id from the global index, as for a device paired at index 0):
// readable, and split back into the event's pieces exactly. The buffer is
// written at shutdown only, just before the exact seq mark (seqLease.finish),
// so publishing never waits for it. A buffer that does not end at the
// mark the store holds is from an older clean stop, followed by a crash:
// the events after it are lost, so it is not used, and every gap that
// reaches before the new start is answered with truncated: true (E-6),
// while numbering resumes above the lease as after any crash. A damaged
// buffer never stops the server: it starts with an empty log and says why
// in one log line.

// saveReplay saves evs, the events the log holds, oldest first.
func (s *Server) saveReplay(evs []*event) error {
	saved := make([]store.SavedEvent, len(evs))
	for i, e := range evs {
		saved[i] = store.SavedEvent{Index: e.g, Frame: e.appendTo(nil, 0)}
	}
	if err := s.store.SaveReplay(saved); err != nil {
		return fmt.Errorf("server: save the replay buffer: %w", err)
	}
	return nil
}

// restoreReplay loads the buffer saved at the last clean stop into the
// log, which resumes after mark, the store's seq mark. It logs one line
// saying what it restored, or why it restored nothing.
func (s *Server) restoreReplay(mark int64) {
	saved, err := s.store.SavedReplay()
	var evs []*event
	if err == nil && len(saved) > 0 {
		if newest := saved[len(saved)-1].Index; newest != mark {
			err = fmt.Errorf("it ends at event %d, but the seq mark is %d: the server did not stop cleanly after saving it", newest, mark)
		}
	}
	for i := 0; err == nil && i < len(saved); i++ {
		var e *event
		if e, err = decodeSaved(saved[i]); err == nil {
			evs = append(evs, e)
		}
	}
	switch {
	case err != nil:
		s.log.Warn("replay buffer not restored: a hello with last_seq from before this start gets truncated: true", "err", err)
	case len(evs) == 0 && mark > 0:
		s.log.Info("no saved replay buffer: a hello with last_seq from before this start gets truncated: true")
	case len(evs) > 0:
		s.events.restore(evs)
		s.log.Info("replay buffer restored from the last clean stop", "events", s.events.n, "oldest", s.events.oldest(), "newest", mark)
	}
}

// decodeSaved splits a saved frame back into the event it was rendered
// from, checking that it is that event's frame: a durable type, and
// rendering it again gives the same bytes. The event keeps se.Frame's
// bytes.
func decodeSaved(se store.SavedEvent) (*event, error) {
	seq := strconv.AppendInt(nil, se.Index, 10)
	rest, ok := bytes.CutPrefix(se.Frame, append(eventHead, seq...))
	idMark := []byte(`,"event_id":"e_`)
	// Inside a JSON string a quote is escaped, so the first such mark is
	// the envelope's own.
	i := bytes.Index(rest, append(append(idMark, seq...), `","payload":`...))
	if !ok || i < 0 {
		return nil, fmt.Errorf("event %d: its frame does not start with its own seq and event_id", se.Index)
	}
	// The envelope between seq and event_id names the type; the payload
	// is the store's to vouch for (its checksum).
	var env struct {
		Type string `json:"type"`
	}
	head := append(append([]byte("{"), rest[1:i]...), '}')
	if err := json.Unmarshal(head, &env); err != nil || !lmp.IsDurable(env.Type) {
		return nil, fmt.Errorf("event %d: not a durable event frame (type %q)", se.Index, env.Type)
	}
	k := i + len(idMark) // rest is the frame's own copy (SavedReplay)
	e := &event{g: se.Index, typ: env.Type, mid: rest[:k:k], tail: rest[k+len(seq):]}
	if !bytes.Equal(e.appendTo(nil, 0), se.Frame) {
		return nil, errors.New("event " + string(seq) + ": its frame does not render again as saved")
	}
	return e, nil
}

// restore fills an empty log with evs, consecutive events ending at the
// log's last index, keeping the newest that fit in the ring.
func (l *eventLog) restore(evs []*event) {
	if len(evs) > len(l.ring) {
		evs = evs[len(evs)-len(l.ring):]
	}
	for _, e := range evs {
		l.ring[l.slot(e.g)].Store(e)
	}
	l.n = len(evs)
}
