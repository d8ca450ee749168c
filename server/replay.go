package server

// replayLocked places a connection that hello authenticates in the shared
// log: hello.ok's seq (the position just before the first frame that
// follows it), the gap to re-send right after hello.ok, the cursor after
// which the writer continues, and whether the gap could not be served in
// full (E-6). Called with s.mu held.
//
// A nil lastSeq replays nothing and starts at the device's current seq. A
// lastSeq above the device's current seq cannot be honoured: truncated,
// nothing replayed. A gap partly dropped from the ring or lost in a restart
// is truncated, and what the ring still holds of it is re-sent (E-5).
//
// The first fetchBatch events of the gap are handed over with hello.ok;
// the writer reads the rest from the log like live events, through the
// cursor, so a replay costs no copy of the gap.
func (s *Server) replayLocked(d *device, lastSeq *int64) (p *preamble, truncated bool) {
	cur := s.currentSeqLocked(d)
	p = &preamble{base: d.rec.Base, seq: cur, after: s.events.last}
	if lastSeq == nil {
		return p, false
	}
	ls := max(*lastSeq, 0)
	if ls > cur {
		return p, true
	}
	// Enforces E-5: a hello with last_seq gets the gap after it re-sent from the ReplayWindow log.
	after := d.rec.Base + ls
	// Enforces E-6: a gap older than the log's oldest event is reported as truncated.
	complete := after+1 >= s.events.oldest()
	if !complete {
		after = s.events.oldest() - 1
	}
	p.seq = after - d.rec.Base
	p.replay, _ = s.events.after(after, make([]*event, 0, min(fetchBatch, s.events.last-after)))
	p.after = after + int64(len(p.replay))
	return p, !complete
}
