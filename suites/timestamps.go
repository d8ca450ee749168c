package suites

import (
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

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

var _ = conformance.Section(sectionTransport, func() {
	conformance.It("T-2", rules.MUST, "GET /health answers 200 itself, not through a redirect", func(ctx ginkgo.SpecContext) {
		u, err := target(ctx).HealthURL()
		must.Succeed(err)
		hc := *target(ctx).HTTPClient
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		must.Succeed(err)
		resp, err := hc.Do(req)
		must.Succeed(err, "GET %s", u)
		defer resp.Body.Close()
		must.That(resp.StatusCode == http.StatusOK, "GET %s answered %s (Location %q): probes and proxies do not follow it", u, resp.Status, resp.Header.Get("Location"))
	})

	conformance.It("T-7,T-8", rules.MUST, "hello.ok's server_time is the server's clock at hello: it agrees with the next frames' ts", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		st := expectEpochSeconds(c.HelloOK.ServerTime, "server_time")
		var frames []client.Frame
		for range 3 {
			must.Send(ctx, c, lmp.Ping{})
			frames = append(frames, must.Expect(ctx, c, match.Type(lmp.TypePong)))
		}
		checkTimestamps(frames)
		for _, f := range frames {
			must.That(math.Abs(f.TS-st) <= clockSkew.Seconds(),
				"server_time %.3f and the ts %.3f of a pong sent right after it lie %.1f s apart: server_time is not the server's clock at hello", st, f.TS, math.Abs(f.TS-st))
		}
	})

	conformance.It("T-7", rules.MUST, "every frame's timestamps are float epoch seconds: ts, server_time, started_at, deadline_ts", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		// A run (run.started, its deltas, its end), in a task of its own.
		r, err := conformance.Events(ctx).Reply(ctx, c)
		must.Succeed(err, "start a reply run")
		frames := runFramesOf(ctx, c, r.Task)
		// A notification, an approval, the task rows (the run's task among them).
		frames = append(frames, takeBatch(ctx, c, notifications(ctx, c, 1))...)
		req := newApproval(ctx, c, 0).Required
		expectEpochSeconds(req.DeadlineTS, "approval.required deadline_ts")
		frames = append(frames, must.Request(ctx, c, lmp.TaskList{Limit: ptr(5)}))
		checkTimestamps(frames)
	}, conformance.NeedsEvents)
})

// rowTimes are the reference server's timestamp fields of a task row
// (docs/protocol.md); lmp-v1.md names none (note 21).
var rowTimes = []string{"started_at", "ended_at", "last_active"}

var _ = conformance.Section(sectionTransport, func() {
	conformance.It("T-7", rules.SHOULD, "task rows' started_at, ended_at and last_active are float epoch seconds (rows' fields, note 21)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		ownTask(ctx, c)
		rows := ownRows(ctx, c, 5, "")
		checked := 0
		for _, r := range rows {
			for _, name := range rowTimes {
				v, ok := r.Value(name)
				if !ok || v == nil { // absent, or null (an ended_at of a live task)
					continue
				}
				expectEpochSeconds(v, "task "+r.TaskID+" "+name)
				checked++
			}
		}
		if checked == 0 {
			ginkgo.Skip(fmt.Sprintf("none of %d task rows carries %v: nothing to check", len(rows), rowTimes))
		}
	}, conformance.NeedsEvents)
})
