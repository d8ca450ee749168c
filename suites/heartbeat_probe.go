package suites

import (
	"context"
	"fmt"
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

// runHeartbeat pairs a device with manual pongs and answers the n-th ping
// (1-based) after delay(n), or never when delay(n) < 0. It stops after
// stopAfter pings, or when the server closes, or at the budget.
func runHeartbeat(ctx context.Context, p *conformance.Probe, res *heartbeatRun, stopAfter int, delay func(n int) time.Duration) error {
	// Long enough for stopAfter pings too, when that is more than the
	// misses that disconnect.
	prof := conformance.TargetOf(ctx).Profile
	pings := time.Duration(stopAfter)*prof.PingInterval + prof.PongTimeout
	ctx, cancel := context.WithTimeout(ctx, max(heartbeatBudget(ctx), pings+slack(pings)+conformance.Wait()))
	defer cancel()
	tok, err := conformance.TargetOf(ctx).MintToken(ctx, 0)
	if err != nil {
		return err
	}
	c, err := p.Dial(ctx, &client.Options{ManualPong: true})
	if err != nil {
		return err
	}
	if _, err := c.Hello(ctx, lmp.Hello{Token: tok.Token}); err != nil {
		return fmt.Errorf("pairing: %w", err)
	}
	start := time.Now()
	for n := 1; ; n++ {
		f, err := c.Expect(ctx, match.Type(lmp.TypePing, lmp.TypeError))
		if err != nil {
			if ce := c.Closed(); ce != nil {
				res.closed, res.endAt = ce, time.Since(start)
				return nil
			}
			return err
		}
		if f.Type == lmp.TypeError {
			e, _ := lmp.DecodePayload[lmp.Error](f.Type, f.Payload)
			res.err = &e
			n--
			continue
		}
		res.pings = append(res.pings, f.At.Sub(start))
		if d := delay(n); d >= 0 {
			time.AfterFunc(d, func() { _ = c.Send(context.Background(), lmp.Pong{}) })
		}
		if n == stopAfter {
			// Give the server the pong timeout to act on this ping.
			pt := conformance.TargetOf(ctx).Profile.PongTimeout
			waitCtx, cancel := context.WithTimeout(ctx, pt+slack(pt))
			defer cancel()
			if ce, err := c.WaitClosed(waitCtx); err == nil {
				res.closed, res.endAt = ce, time.Since(start)
			}
			return nil
		}
	}
}
