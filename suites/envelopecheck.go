package suites

import (
	"math"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/must"
)

// Checks of a frame's envelope and timestamps beyond what the schemas say.

// envelopeKeys are the fields every server frame carries (E-1).
var envelopeKeys = []string{"v", "seq", "ts", "type", "task_id", "run_id", "event_id", "payload"}

// checkEnvelope checks E-1 and E-3 on one frame beyond what the schema
// says, so that the failure names the rule directly.
func checkEnvelope(f client.Frame) {
	ginkgo.GinkgoHelper()
	env := rawEnvelope(f)
	for _, k := range envelopeKeys {
		_, ok := env[k]
		must.That(ok, "%s frame lacks envelope field %q (E-1): %s", f.Type, k, f.Raw)
	}
	must.Equal(f.Type+" frame: v (an integer)", env["v"], float64(lmp.Version))
	must.Equal(f.Type+" frame: event_id (E-3: e_<seq>)", f.EventID, lmp.EventID(f.Seq))
	_, isObject := env["payload"].(map[string]any)
	must.That(isObject, "%s frame: payload is not an object (E-1)", f.Type)
}

// Epoch seconds of any date this kit will meet: above 2001, below 5138.
// Milliseconds (1.7e12) and microseconds fall far outside.
const minEpochSeconds, maxEpochSeconds = 1e9, 1e11

// clockSkew is how far two readings of the server's own clock, taken for
// frames sent within a few seconds of each other, may lie apart.
const clockSkew = 5 * time.Second

// timestampFields are the payload fields of §4 that hold a timestamp, by
// frame type (T-7). §4 names no field of a task.list row (note 21): the
// reference server's row times are checked by a SHOULD spec, through
// package ours.
var timestampFields = map[string][]string{
	lmp.TypeHelloOK:          {"server_time"},
	lmp.TypeRunStarted:       {"started_at"},
	lmp.TypeApprovalRequired: {"deadline_ts"},
}

func expectEpochSeconds(v any, where string) float64 {
	ginkgo.GinkgoHelper()
	ts, ok := v.(float64)
	must.That(ok, "%s is %v (%T), not a number of epoch seconds", where, v, v)
	must.That(ts >= minEpochSeconds, "%s = %v is not epoch seconds", where, ts)
	must.That(ts < maxEpochSeconds, "%s = %v is not epoch seconds (milliseconds?)", where, ts)
	return ts
}

// checkTimestamps checks every timestamp of the frames: the envelope ts
// and the payload fields above are epoch seconds, and
// the envelope ts of neither the durable events nor the connection frames
// are all whole seconds (a float clock reading almost never is).
func checkTimestamps(frames []client.Frame) {
	ginkgo.GinkgoHelper()
	whole := map[bool]int{} // by durable: frames whose ts is a whole second
	count := map[bool]int{}
	for _, f := range frames {
		ts := expectEpochSeconds(rawEnvelope(f)["ts"], f.Type+" ts")
		d := lmp.IsDurable(f.Type)
		count[d]++
		if ts == math.Trunc(ts) {
			whole[d]++
		}
		p := rawPayload(f)
		for _, name := range timestampFields[f.Type] {
			expectEpochSeconds(p[name], f.Type+" "+name)
		}
	}
	for _, d := range []bool{true, false} {
		if count[d] >= 3 {
			must.That(whole[d] < count[d], "the ts of all %d frames (durable %v) is a whole second: not float seconds", count[d], d)
		}
	}
}

// rowTimes are the reference server's timestamp fields of a task row
// (docs/protocol.md); lmp-v1.md names none (note 21).
var rowTimes = []string{"started_at", "ended_at", "last_active"}
