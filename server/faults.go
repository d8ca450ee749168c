package server

import (
	"encoding/json"

	"github.com/loomi-lmp/lmpkit/internal/fault"
)

// This file holds the parts of the self-test's faults (Config.Faults) that
// do not fit in one line where the rule is enforced. Nothing here runs
// when Config.Faults is empty.

// faultyReplay breaks the replay snapshot of replayLocked as the faults in
// s.cfg.Faults say: E-5 (an event left out, or events produced while the
// device was offline left out), E-6 (truncation never reported), E-7 (an
// event sent twice).
func (s *Server) faultyReplay(d *device, evs []*event, complete bool) ([]*event, bool) {
	f := s.cfg.Faults
	if f.Has(fault.OfflineDevicesNotBuffer) && d.offlineAt > 0 {
		kept := evs[:0:0]
		for _, ev := range evs {
			if ev.g <= d.offlineAt {
				kept = append(kept, ev)
			}
		}
		evs = kept
	}
	if f.Has(fault.ReplaySkipsOne) && len(evs) > 0 {
		evs = evs[1:]
	}
	if f.Has(fault.ReplayDuplicatesOne) && len(evs) > 0 {
		evs = append([]*event{evs[0]}, evs...)
	}
	if f.Has(fault.TruncatedNeverSet) {
		complete = true
	}
	return evs, complete
}

// dropField removes one top-level field from a JSON object.
func dropField(raw []byte, name string) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return raw
	}
	delete(m, name)
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}
