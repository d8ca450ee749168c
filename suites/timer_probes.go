package suites

import (
	"context"
	"fmt"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// The timer probes of the auth timeout, the token TTL and the approval
// timeout: each starts with the suite and its spec awaits its outcome
// (conformance.Probe), so that the timers of a run overlap.

// authTimeoutResult is what the auth-timeout probe saw.
type authTimeoutResult struct {
	after time.Duration
	close *client.CloseError
	err   *lmp.Error
}

var authTimeout authTimeoutResult

// authTimeoutProbe opens a connection and never authenticates (S-4). An
// attempt the machine stalled runs again (retryStalled).
var authTimeoutProbe = conformance.NewProbe("auth timeout", func(ctx context.Context, p *conformance.Probe) error {
	return retryStalled(p, func() (string, error) {
		authTimeout = authTimeoutResult{}
		return authTimeoutAttempt(ctx, p, &authTimeout)
	})
})

// authTimeoutAttempt is one attempt of authTimeoutProbe. late says how its
// process stalled, or is empty.
func authTimeoutAttempt(ctx context.Context, p *conformance.Probe, res *authTimeoutResult) (late string, err error) {
	limit := conformance.TargetOf(ctx).Profile.AuthTimeout
	watch := conformance.WatchStalls()
	defer func() { late = conformance.Stalled(watch.Stop(), slack(limit)/2) }()
	start := time.Now()
	c, err := p.Dial(ctx, nil)
	if err != nil {
		return "", err
	}
	waitCtx, cancel := context.WithTimeout(ctx, limit+slack(limit)+conformance.Wait())
	defer cancel()
	ce, err := c.WaitClosed(waitCtx)
	if err != nil {
		return "", fmt.Errorf("an unauthenticated connection was still open after %v (S-4: closed within %v)", time.Since(start).Round(time.Millisecond), limit)
	}
	res.after, res.close = time.Since(start), ce
	for _, f := range c.Pending() {
		if f.Type == lmp.TypeError {
			if e, err := lmp.DecodePayload[lmp.Error](f.Type, f.Payload); err == nil {
				res.err = &e
			}
		}
	}
	return "", nil
}

// pairTTLProbe mints a token with a short TTL, waits past its expiry and
// tries to pair with it (P-5). It runs in the background from the start of
// the suite.
var pairTTLProbe = conformance.NewProbe("token TTL", func(ctx context.Context, p *conformance.Probe) error {
	const ttl = 2 * time.Second
	t := conformance.TargetOf(ctx)
	if t.PairURL == "" {
		return errSkip("needs --pair-url to request a short TTL")
	}
	mintCtx, cancel := context.WithTimeout(ctx, conformance.Wait())
	pr, err := t.MintToken(mintCtx, ttl)
	cancel()
	if err != nil {
		return err
	}
	expires := lmp.TimeOf(pr.ExpiresAt)
	if until := time.Until(expires); until > 2*time.Minute {
		return errSkip(fmt.Sprintf("the server ignored the requested %v TTL (token expires in %v)", ttl, until.Round(time.Second)))
	}
	// Wait for the expiry itself: this is the timer under test.
	timer := time.NewTimer(time.Until(expires) + slack(ttl))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	c, err := p.Dial(ctx, nil)
	if err != nil {
		return err
	}
	helloCtx, cancel := context.WithTimeout(ctx, conformance.Wait())
	defer cancel()
	ok, err := c.Hello(helloCtx, lmp.Hello{Token: pr.Token})
	if err == nil {
		return fmt.Errorf("an expired token paired device %s (P-5)", ok.DeviceID)
	}
	if se, isSE := should.ServerError(err); isSE {
		p.Notef("refused with %s", se.Code)
	}
	return nil
})

// approvalTimeout is what the approval-timeout probe saw: deadline_ts off
// the configured timeout, and the approval.resolved each device got.
var approvalTimeout struct {
	late     time.Duration
	resolved []lmp.ApprovalResolved
}

// approvalTimeoutProbe lets an approval time out with two devices online
// (note 15). Hermes has one configured approval timeout and gives the
// adapter no deadline, so the wait is the profile's approval timeout: a
// probe, so that it overlaps with the other timers.
var approvalTimeoutProbe = conformance.NewProbe("approval timeout", func(ctx context.Context, p *conformance.Probe) error {
	t := conformance.TargetOf(ctx)
	if !t.HasDriver() {
		return errSkip(conformance.SkipNoDriver)
	}
	var devs []*conformance.Conn
	for _, name := range []string{"device A", "device B"} {
		c, err := p.Dial(ctx, nil)
		if err != nil {
			return err
		}
		c.Name = "probe approval timeout: " + name
		tok, err := t.MintToken(ctx, 0)
		if err != nil {
			return err
		}
		if _, err := c.Hello(ctx, lmp.Hello{Token: tok.Token}); err != nil {
			return err
		}
		devs = append(devs, c)
	}
	timeout := t.Profile.ApprovalTimeout
	// The wait is the approval timeout: a server that closes a device's
	// connection meanwhile fails the probe at once, with its close code.
	ctx, stop := p.WhileOpen(ctx, devs...)
	defer stop()
	before := time.Now()
	res, err := t.Driver().Approval(ctx, driver.ApprovalRequest{Command: "rm -rf /tmp/" + should.NewID("x"), Description: "dangerous", TimeoutMS: timeout.Milliseconds()})
	if err != nil {
		return conformance.Cause(ctx, fmt.Errorf("driver approval: %w", err))
	}
	wait, cancel := context.WithTimeout(ctx, timeout+slack(timeout)+conformance.Wait())
	defer cancel()
	f, err := devs[0].Expect(wait, match.Type(lmp.TypeApprovalRequired).And(match.Approval(res.ApprovalID)))
	if err != nil {
		return conformance.Cause(ctx, err)
	}
	req, err := lmp.DecodePayload[lmp.ApprovalRequired](f.Type, f.Payload)
	if err != nil {
		return err
	}
	approvalTimeout.late = lmp.TimeOf(req.DeadlineTS).Sub(before.Add(timeout))
	for _, d := range devs {
		f, err := d.Expect(wait, match.Type(lmp.TypeApprovalResolved).And(match.Approval(res.ApprovalID)))
		if err != nil {
			return conformance.Cause(ctx, err)
		}
		r, err := lmp.DecodePayload[lmp.ApprovalResolved](f.Type, f.Payload)
		if err != nil {
			return err
		}
		approvalTimeout.resolved = append(approvalTimeout.resolved, r)
	}
	return nil
})
