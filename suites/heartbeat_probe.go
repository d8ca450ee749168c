package suites

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
)

// The heartbeat probe: a device that answers the server's pings as told.

// heartbeatRun is what one heartbeat probe saw: when each server ping
// arrived (measured from hello.ok) and how the connection ended, if it did.
type heartbeatRun struct {
	pings  []time.Duration
	closed *client.CloseError
	endAt  time.Duration
	err    *lmp.Error
}

// heartbeatBudget is how long a heartbeat probe may take: three missed
// pongs plus slack.
func heartbeatBudget(ctx context.Context) time.Duration {
	p := conformance.TargetOf(ctx).Profile
	d := time.Duration(p.MissedPongs)*p.PingInterval + p.PongTimeout
	return d + slack(d) + conformance.Wait()
}

// heartbeatSpecTimeout bounds a heartbeat spec, which awaits its probe: at
// the spec's 25 s ping interval, two attempts of the longest probe take
// four and a half minutes. A target that declares a longer interval raises
// it (conformance: every timer spec's timeout covers the run's longest
// timer).
const heartbeatSpecTimeout = 6 * time.Minute

// runHeartbeat pairs a device with manual pongs and answers the n-th ping
// (1-based) after delay(n), or never when delay(n) < 0. It stops after
// stopAfter pings, or when the server closes, or at the budget. An attempt
// that judged the machine rather than the server (the probe's own answers
// left late, or its process stalled) runs again (retryStalled); the notes
// say so.
func runHeartbeat(ctx context.Context, p *conformance.Probe, res *heartbeatRun, stopAfter int, delay func(n int) time.Duration) error {
	return retryStalled(p, func() (string, error) {
		*res = heartbeatRun{}
		return heartbeatAttempt(ctx, p, res, stopAfter, delay)
	})
}

// pairManualPong pairs a new device on a connection of the probe's that
// answers no ping by itself.
func pairManualPong(ctx context.Context, p *conformance.Probe) (*conformance.Conn, lmp.HelloOK, error) {
	tok, err := conformance.TargetOf(ctx).MintToken(ctx, 0)
	if err != nil {
		return nil, lmp.HelloOK{}, err
	}
	c, err := p.Dial(ctx, &client.Options{ManualPong: true})
	if err != nil {
		return nil, lmp.HelloOK{}, err
	}
	ok, err := c.Hello(ctx, lmp.Hello{Token: tok.Token})
	if err != nil {
		return nil, lmp.HelloOK{}, fmt.Errorf("pairing: %w", err)
	}
	return c, ok, nil
}

// pongSent is one answered ping: the server's ts on it, when it arrived,
// how long the probe meant to wait, and when the pong left.
type pongSent struct {
	n          int
	ts         float64
	at, sentAt time.Time
	meant      time.Duration
}

// heartbeatAttempt is one attempt of runHeartbeat. late says how the
// probe's own answer was late or its process stalled, or is empty.
func heartbeatAttempt(ctx context.Context, p *conformance.Probe, res *heartbeatRun, stopAfter int, delay func(n int) time.Duration) (late string, err error) {
	// Long enough for stopAfter pings too, when that is more than the
	// misses that disconnect.
	prof := conformance.TargetOf(ctx).Profile
	pings := time.Duration(stopAfter)*prof.PingInterval + prof.PongTimeout
	ctx, cancel := context.WithTimeout(ctx, max(heartbeatBudget(ctx), pings+slack(pings)+conformance.Wait()))
	defer cancel()
	c, _, err := pairManualPong(ctx, p)
	if err != nil {
		return "", err
	}
	var (
		mu    sync.Mutex
		pongs []*pongSent
		seen  []client.Frame // every ping, for the clock offset
	)
	watch := conformance.WatchStalls()
	defer func() {
		worst := watch.Stop()
		mu.Lock()
		defer mu.Unlock()
		if late = lateAnswer(seen, pongs, prof.PongTimeout/2); late == "" {
			late = conformance.Stalled(worst, stallMargin(prof))
		}
	}()
	start := time.Now()
	for n := 1; ; n++ {
		f, err := c.Expect(ctx, match.Type(lmp.TypePing, lmp.TypeError))
		if err != nil {
			if ce := c.Closed(); ce != nil {
				res.closed, res.endAt = ce, time.Since(start)
				return "", nil
			}
			return "", err
		}
		if f.Type == lmp.TypeError {
			e, _ := lmp.DecodePayload[lmp.Error](f.Type, f.Payload)
			res.err = &e
			n--
			continue
		}
		res.pings = append(res.pings, f.At.Sub(start))
		mu.Lock()
		seen = append(seen, f)
		mu.Unlock()
		if d := delay(n); d >= 0 {
			ps := &pongSent{n: n, ts: f.TS, at: f.At, meant: d}
			time.AfterFunc(d, func() {
				_ = c.Send(context.Background(), lmp.Pong{})
				mu.Lock()
				ps.sentAt = time.Now()
				pongs = append(pongs, ps)
				mu.Unlock()
			})
		}
		if n == stopAfter {
			// Give the server the pong timeout to act on this ping.
			pt := conformance.TargetOf(ctx).Profile.PongTimeout
			waitCtx, cancel := context.WithTimeout(ctx, pt+slack(pt))
			defer cancel()
			if ce, err := c.WaitClosed(waitCtx); err == nil {
				res.closed, res.endAt = ce, time.Since(start)
			}
			return "", nil
		}
	}
}

// lateAnswer says which pong left more than margin later than the probe
// meant, counted from when the server stamped its ping; "" when none did.
// The server's clock need not agree with ours: the smallest difference
// between a ping's ts and its arrival is taken as the clocks' offset plus
// the network's delay, and a ping's lateness is counted above it.
func lateAnswer(pings []client.Frame, pongs []*pongSent, margin time.Duration) string {
	if len(pings) == 0 {
		return ""
	}
	offset := pings[0].At.Sub(lmp.TimeOf(pings[0].TS))
	for _, f := range pings[1:] {
		offset = min(offset, f.At.Sub(lmp.TimeOf(f.TS)))
	}
	for _, ps := range pongs {
		if extra := ps.sentAt.Sub(lmp.TimeOf(ps.ts)) - offset - ps.meant; extra > margin {
			return fmt.Sprintf("the pong to ping %d left %v later than meant (it arrived %v late, the pong waited %v more): the machine stalled",
				ps.n, extra.Round(time.Millisecond), (ps.at.Sub(lmp.TimeOf(ps.ts)) - offset).Round(time.Millisecond), (ps.sentAt.Sub(ps.at) - ps.meant).Round(time.Millisecond))
		}
	}
	return ""
}

var (
	hbAlive, hbSilent, hbLate, hbTwoMisses heartbeatRun

	// hbAliveProbe answers every ping at once for three pings.
	hbAliveProbe = conformance.NewProbe("heartbeat: answered", func(ctx context.Context, p *conformance.Probe) error {
		return runHeartbeat(ctx, p, &hbAlive, 3, func(int) time.Duration { return 0 })
	})
	// hbSilentProbe never answers.
	hbSilentProbe = conformance.NewProbe("heartbeat: never answered", func(ctx context.Context, p *conformance.Probe) error {
		return runHeartbeat(ctx, p, &hbSilent, 4, func(int) time.Duration { return -1 })
	})
	// hbLateProbe answers every ping after the pong timeout.
	hbLateProbe = conformance.NewProbe("heartbeat: answered late", func(ctx context.Context, p *conformance.Probe) error {
		// Pongs carry no ping id: a pong after the next ping would answer
		// that one. Answer halfway between the deadline and the next ping.
		prof := conformance.TargetOf(ctx).Profile
		if prof.PingInterval-prof.PongTimeout < 400*time.Millisecond {
			return errSkip("the profile leaves no room between the pong deadline and the next ping")
		}
		late := (prof.PongTimeout + prof.PingInterval) / 2
		return runHeartbeat(ctx, p, &hbLate, 4, func(int) time.Duration { return late })
	})
	// hbTwoMissesProbe misses two pings and answers the third.
	hbTwoMissesProbe = conformance.NewProbe("heartbeat: two misses", func(ctx context.Context, p *conformance.Probe) error {
		return runHeartbeat(ctx, p, &hbTwoMisses, 3, func(n int) time.Duration {
			if n < 3 {
				return -1
			}
			return 0
		})
	})
)

var (
	hbAlternating, hbAnsweredOnce heartbeatRun

	// hbAlternatingProbe misses every other ping: five pings, three of
	// them unanswered, never two in a row.
	hbAlternatingProbe = conformance.NewProbe("heartbeat: every other ping missed", func(ctx context.Context, p *conformance.Probe) error {
		return runHeartbeat(ctx, p, &hbAlternating, 5, func(n int) time.Duration {
			if n%2 == 1 {
				return -1
			}
			return 0
		})
	})
)

var (
	// hbAnsweredOnceProbe answers the first ping, then falls silent: a pong
	// answers the ping it follows, not the pings after it.
	hbAnsweredOnceProbe = conformance.NewProbe("heartbeat: first ping answered only", func(ctx context.Context, p *conformance.Probe) error {
		misses := conformance.TargetOf(ctx).Profile.MissedPongs
		return runHeartbeat(ctx, p, &hbAnsweredOnce, misses+2, func(n int) time.Duration {
			if n == 1 {
				return 0
			}
			return -1
		})
	})
)

// returningRun is what the returning-device probe saw: the ts of the
// first connection's first server ping, the server_time of the second
// connection's hello.ok, and when that connection's pings arrived
// (measured from its hello.ok).
type returningRun struct {
	firstPingTS, serverTime float64
	pings                   []time.Duration
	// stamped is when the server stamped each of those pings, by its ts,
	// after the server_time of that hello.ok: the server's own account,
	// which a failure shows beside the arrival.
	stamped []time.Duration
}

var (
	hbReturning returningRun

	// hbReturningProbe pairs a device, waits for a server ping on that
	// first connection, then connects the device again with its device_id
	// and credential (P-8) and waits for two pings there. T-4 and T-8 bind
	// every connection, not only a new device's first one. Like the other
	// heartbeat probes it runs again when the machine stalled it.
	hbReturningProbe = conformance.NewProbe("heartbeat: returning device", func(ctx context.Context, p *conformance.Probe) error {
		return retryStalled(p, func() (string, error) {
			hbReturning = returningRun{}
			return returningAttempt(ctx, p, &hbReturning)
		})
	})
)

// returningAttempt is one attempt of hbReturningProbe. late says how a
// ping was read late or the probe's process stalled, or is empty.
func returningAttempt(ctx context.Context, p *conformance.Probe, res *returningRun) (late string, err error) {
	prof := conformance.TargetOf(ctx).Profile
	ping := prof.PingInterval + slack(prof.PingInterval) + conformance.Wait()
	ctx, cancel := context.WithTimeout(ctx, 3*ping+conformance.Wait())
	defer cancel()
	first, ok, err := pairManualPong(ctx, p)
	if err != nil {
		return "", err
	}
	if ok.Credential == nil {
		return "", errors.New("hello.ok after pairing carries no credential")
	}
	f, err := first.Expect(ctx, match.Type(lmp.TypePing))
	if err != nil {
		return "", fmt.Errorf("no server ping on the new device's connection: %w", err)
	}
	res.firstPingTS = f.TS
	_ = first.CloseNow()
	c, err := p.Dial(ctx, &client.Options{ManualPong: true})
	if err != nil {
		return "", err
	}
	again, err := c.Hello(ctx, lmp.Hello{DeviceID: ok.DeviceID, Credential: *ok.Credential})
	if err != nil {
		return "", fmt.Errorf("reconnecting with device_id and credential: %w", err)
	}
	res.serverTime = again.ServerTime
	// Every ping is answered at once: a pong that left late was a ping
	// read late, which the server's ts on it shows (lateAnswer).
	seen := []client.Frame{f}
	var pongs []*pongSent
	watch := conformance.WatchStalls()
	defer func() {
		worst := watch.Stop()
		if late = lateAnswer(seen, pongs, stallMargin(prof)); late == "" {
			late = conformance.Stalled(worst, stallMargin(prof))
		}
	}()
	start := time.Now()
	for n := 1; n <= 2; n++ {
		f, err := c.Expect(ctx, match.Type(lmp.TypePing))
		if err != nil {
			// The spec reports the pings that did arrive.
			return "", nil
		}
		res.pings = append(res.pings, f.At.Sub(start))
		res.stamped = append(res.stamped, lmp.TimeOf(f.TS).Sub(lmp.TimeOf(res.serverTime)))
		_ = c.Send(ctx, lmp.Pong{})
		seen = append(seen, f)
		pongs = append(pongs, &pongSent{n: n, ts: f.TS, at: f.At, sentAt: time.Now()})
	}
	return "", nil
}
