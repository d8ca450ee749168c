package campaign

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Run runs a campaign against cfg.URL: it pairs its devices and the
// monitor, fuzzes for cfg.Duration with cfg.Conns connections, then
// shrinks and saves each finding. The error is for a campaign that could
// not run at all (unreachable server, no pairing endpoint); findings are in
// the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.HTTPClient == nil {
		t := campaignTransport()
		defer t.CloseIdleConnections()
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second, Transport: t}
	}
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	e := newEngine(cfg)
	if err := checkHealth(ctx, cfg.HTTPClient, cfg.HealthURL); err != nil {
		return nil, fmt.Errorf("campaign: %s is not healthy before the campaign: %w", cfg.HealthURL, err)
	}
	devs, err := e.pairDevices(ctx, cfg.Devices+1)
	if err != nil {
		return nil, err
	}
	e.devices = devs[1:]
	for _, d := range devs {
		e.devIDs[d.ID] = true
	}

	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	var wg sync.WaitGroup
	m := &monitor{e: e, dev: devs[0], t: defaultMonitorTimings, markers: map[string]bool{}}
	ready := make(chan error, 1)
	wg.Go(func() { m.run(runCtx, ready) })
	if err := <-ready; err != nil {
		stop()
		wg.Wait()
		return nil, fmt.Errorf("campaign: connect the monitor device: %s", e.secrets.redact(err.Error()))
	}
	h := &healthWatch{e: e, every: 250 * time.Millisecond}
	wg.Go(func() { h.run(runCtx) })
	var l *load
	if cfg.DriverURL != "" {
		l = &load{e: e, m: m, every: 20 * time.Millisecond, deadln: 5 * time.Second}
		wg.Go(func() { l.run(runCtx) })
	}
	e.start = time.Now()
	for i := range cfg.Conns {
		wg.Go(func() { e.worker(runCtx, i) })
	}
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		e.progress(runCtx)
	}()
	wg.Wait()
	<-progressDone
	elapsed := time.Since(e.start)

	e.saveFindings(ctx)
	return e.buildReport(elapsed, m, h, l), nil
}

// progress writes the live progress line at most once a second.
func (e *engine) progress(ctx context.Context) {
	if e.cfg.Progress == nil {
		return
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	line := func() {
		el := time.Since(e.start).Seconds()
		sent := e.framesSent.Load()
		e.mu.Lock()
		distinct := len(e.responses)
		e.mu.Unlock()
		fmt.Fprintf(e.cfg.Progress, "\rfuzz %5.0fs  frames %9d  %7.0f/s  responses %3d  findings %d ", el, sent, float64(sent)/max(el, 0.001), distinct, e.findingCount())
	}
	for {
		select {
		case <-ctx.Done():
			line()
			fmt.Fprintln(e.cfg.Progress)
			return
		case <-tick.C:
			line()
		}
	}
}
