package check

import (
	"context"
	"fmt"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// acquire returns the run's target, ready for its specs, and what releases
// it: an in-process reference server without --url, else the server at
// --url once it answers.
func acquire(ctx context.Context, p *plan) (*conformance.Target, func(), error) {
	// The scripted model (--model) comes first: a real Hermes under test
	// may need it to answer.
	stopModel := func() {}
	if p.cfg.Model != "" {
		stop, err := serveModel(p.cfg)
		if err != nil {
			return nil, nil, usagef("--model: %v", err)
		}
		stopModel = stop
	}
	var t *conformance.Target
	release := stopModel
	var err error
	if p.cfg.URL == "" {
		var closeInst func()
		if t, closeInst, err = inProcessTarget(ctx, p); err == nil {
			release = func() { closeInst(); stopModel() }
		}
	} else {
		t, err = remoteTarget(ctx, p)
	}
	if err != nil {
		stopModel()
		return nil, nil, err
	}
	return t, release, nil
}

// inProcessTarget starts a reference server with the --profile's timings
// and describes it as a target: its timings are known without asking its
// driver API.
func inProcessTarget(ctx context.Context, p *plan) (*conformance.Target, func(), error) {
	cfg := p.cfg
	inst, err := reference.StartTarget(ctx, cfg.Listen, p.inProcess)
	if err != nil {
		return nil, nil, err
	}
	// The in-process server has both sources: the event specs go through
	// the triggers, as against a server that is not ours, the specs that
	// observe the Hermes side through the driver.
	triggers := p.triggers
	if triggers == nil {
		triggers = conformance.MockTriggers()
	}
	t := &conformance.Target{
		WSURL: inst.WSURL, PairURL: inst.PairURL, TokenCmd: cfg.TokenCmd, DriverURL: inst.DriverURL,
		Triggers: triggers, PreferTriggers: true, RevokeCmd: cfg.RevokeCmd, ListCmd: cfg.ListCmd,
		// Its devices are listed as `lmp-server devices --json` lists them,
		// unless --list-cmd says otherwise.
		ListFunc: inst.ListDevices,
		// It restarts cleanly in place; a kill -9 needs a process of its own.
		RestartFunc: inst.Restart,
		HTTPClient:  p.http, Strict: cfg.Strict, ServerLog: inst.LogPath,
	}
	t.Profile, t.ProfileSource = withFlags(inst.Profile, conformance.ProfileFromDriver, cfg.Timings)
	if cfg.NoDriver {
		// Hidden from the suites: they see the server as one without a
		// driver, and learn its timings as such a server's user gives them,
		// through the timing flags.
		t.DriverURL = ""
		t.ProfileSource = conformance.ProfileFromFlags
	}
	fmt.Fprintf(cfg.Stdout, "lmp-check: no --url given: checking an in-process lmp-server at %s with the %s timing profile", t.WSURL, cfg.Profile)
	if cfg.Profile == "short" {
		fmt.Fprint(cfg.Stdout, " (use --profile spec for the spec's timings)")
	}
	fmt.Fprintln(cfg.Stdout)
	return t, inst.Close, nil
}

// remoteTarget is the server at --url: its pairing endpoint derived when
// the URL is loopback, its timings from its driver API when there is one,
// and it answers before any spec runs.
func remoteTarget(ctx context.Context, p *plan) (*conformance.Target, error) {
	cfg := p.cfg
	t := &conformance.Target{
		WSURL: cfg.URL, PairURL: cfg.PairURL, TokenCmd: cfg.TokenCmd, DriverURL: cfg.DriverURL,
		Triggers: p.triggers, RevokeCmd: cfg.RevokeCmd, ListCmd: cfg.ListCmd,
		RestartCmd: cfg.RestartCmd, CrashCmd: cfg.CrashCmd,
		HTTPClient: p.http, Strict: cfg.Strict, ServerLog: cfg.ServerLog,
	}
	if t.PairURL == "" && t.TokenCmd == "" {
		if !client.IsLoopbackURL(cfg.URL) {
			return nil, usagef("--url %s is not loopback: give --pair-url or --token-cmd", cfg.URL)
		}
		var err error
		if t.PairURL, err = client.PairURLFor(cfg.URL); err != nil {
			return nil, usagef("%v", err)
		}
	}
	base, source := lmp.DefaultProfile(), conformance.ProfileFromSpec
	if t.DriverURL != "" {
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		dp, err := driver.New(t.DriverURL, t.HTTPClient).Profile(dctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%w: driver API %s: %v", errUnreachable, t.DriverURL, err)
		}
		base, source = dp.Timings(), conformance.ProfileFromDriver
	}
	t.Profile, t.ProfileSource = withFlags(base, source, cfg.Timings)
	if err := preflight(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// withFlags is the profile base (from source) with the timing flags set in
// flags put in its place; any flag set makes the flags its source.
func withFlags(base lmp.Profile, source string, flags lmp.Profile) (lmp.Profile, string) {
	if (lmp.Profile{}).Override(flags).IsZero() {
		return base, source
	}
	return base.Override(flags), conformance.ProfileFromFlags
}

// preflight checks that the target answers HTTP at /health and accepts a
// WebSocket, before any spec runs: otherwise the run ends with exit code 2,
// not with a page of failures.
func preflight(ctx context.Context, t *conformance.Target) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	health, err := t.HealthURL()
	if err != nil {
		return usagef("%v", err)
	}
	req, err := newGet(ctx, health)
	if err != nil {
		return usagef("%v", err)
	}
	resp, err := t.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w: GET %s: %v", errUnreachable, health, err)
	}
	resp.Body.Close()
	c, err := client.Dial(ctx, t.WSURL, &client.Options{HTTPClient: t.HTTPClient})
	if err != nil {
		return fmt.Errorf("%w: WebSocket %s: %v", errUnreachable, t.WSURL, err)
	}
	_ = c.CloseNow()
	return nil
}
