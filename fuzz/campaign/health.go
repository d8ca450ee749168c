package campaign

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
)

// healthWatch polls GET /health (T-2) until ctx ends and reports the first
// failure of every streak of failures.
type healthWatch struct {
	e              *engine
	every          time.Duration
	checks, failed atomic.Int64
}

func (h *healthWatch) run(ctx context.Context) {
	tick := time.NewTicker(h.every)
	defer tick.Stop()
	down := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := h.check(ctx)
		if ctx.Err() != nil {
			return
		}
		h.checks.Add(1)
		if err != nil {
			h.failed.Add(1)
			if !down {
				h.e.report([]Finding{{Kind: KindHealth, Rule: kindRule[KindHealth], Episode: "health",
					Message: "GET /health: " + err.Error()}}, nil, false)
			}
		}
		down = err != nil
	}
}

// checkHealth answers whether url serves exactly {"ok":true,"v":1} (T-2),
// within 2 s.
func checkHealth(ctx context.Context, hc *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return client.CheckHealth(ctx, hc, url)
}

func (h *healthWatch) check(ctx context.Context) error {
	return checkHealth(ctx, h.e.cfg.HTTPClient, h.e.cfg.HealthURL)
}
