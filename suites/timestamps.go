package suites

import (
	"fmt"
	"math"
	"net/http"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionTransport, func(specs *conformance.Specs) {
	specs.It("T-2", rules.MUST, "GET /health answers 200 itself, not through a redirect", func(ctx ginkgo.SpecContext) {
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

	specs.It("T-7,T-8", rules.MUST, "hello.ok's server_time is the server's clock at hello: it agrees with the next frames' ts", func(ctx ginkgo.SpecContext) {
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

	specs.It("T-7", rules.MUST, "every frame's timestamps are float epoch seconds: ts, server_time, started_at, deadline_ts", func(ctx ginkgo.SpecContext) {
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

var _ = conformance.Section(sectionTransport, func(specs *conformance.Specs) {
	specs.It("T-7", rules.SHOULD, "task rows' started_at, ended_at and last_active are float epoch seconds (rows' fields, note 21)", func(ctx ginkgo.SpecContext) {
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
