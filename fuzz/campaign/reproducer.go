package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// ReproducerFormat names the reproducer file format.
const ReproducerFormat = "lmpkit-fuzz-reproducer/1"

// Reproducer is a saved finding: the episodes that produce it, played one
// after another on fresh connections. Secrets are placeholders, filled in
// from a freshly paired device at replay time, so the file holds none.
type Reproducer struct {
	Format   string    `json:"format"`
	Finding  Finding   `json:"finding"`
	URL      string    `json:"url"`
	Seed     uint64    `json:"seed"`
	Episodes []Episode `json:"episodes"`
}

// LoadReproducer reads a reproducer file.
func LoadReproducer(path string) (*Reproducer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Reproducer
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("reproducer %s: %w", path, err)
	}
	if r.Format != ReproducerFormat {
		return nil, fmt.Errorf("reproducer %s: format %q, want %q", path, r.Format, ReproducerFormat)
	}
	if len(r.Episodes) == 0 {
		return nil, fmt.Errorf("reproducer %s: no episodes", path)
	}
	return &r, nil
}

// Save writes r to path.
func (r *Reproducer) Save(path string) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

// ReplayConfig says where to replay a reproducer. Only URL is required;
// the rest is derived as in Config.
type ReplayConfig struct {
	URL, PairURL, HealthURL string
	HTTPClient              *http.Client
	Schemas                 *Schemas
	Validate                Validator
}

// ReplayResult says what a replay found.
type ReplayResult struct {
	// Reproduced is set when a finding of the reproducer's kind recurred.
	Reproduced bool
	Findings   []Finding
}

// replayTimings wait longer than a campaign: a replay is about certainty.
var replayTimings = connTimings{dial: 5 * time.Second, write: 5 * time.Second, settle: 3 * time.Second, closing: 3 * time.Second}

// Player plays episodes against one server with the oracles of a
// campaign, as a device it paired once. Native fuzz targets use it to feed
// inputs to a live server; Replay uses it for reproducers.
type Player struct{ e *engine }

// NewPlayer pairs the devices a player needs: one to play as, one to be
// "another device" ({{other_device}}).
func NewPlayer(ctx context.Context, cfg ReplayConfig) (*Player, error) {
	c := Config{URL: cfg.URL, PairURL: cfg.PairURL, HealthURL: cfg.HealthURL, HTTPClient: cfg.HTTPClient,
		Schemas: cfg.Schemas, Validate: cfg.Validate, Conns: 1, Devices: 2}
	if err := c.setDefaults(); err != nil {
		return nil, err
	}
	e := newEngine(c)
	e.timings = replayTimings
	devs, err := e.pairDevices(ctx, 2)
	if err != nil {
		return nil, err
	}
	e.devices = devs
	for _, d := range devs {
		e.devIDs[d.ID] = true
	}
	return &Player{e: e}, nil
}

// Play plays eps in order, each on a fresh connection, then checks
// /health, and returns every finding.
func (p *Player) Play(ctx context.Context, eps ...Episode) []Finding { return p.e.play(ctx, eps) }

// Replay plays r against the server at cfg.URL, deterministically: the
// episodes in order, each on a fresh connection of a freshly paired device.
func Replay(ctx context.Context, cfg ReplayConfig, r *Reproducer) (ReplayResult, error) {
	p, err := NewPlayer(ctx, cfg)
	if err != nil {
		return ReplayResult{}, err
	}
	fs := p.Play(ctx, r.Episodes...)
	res := ReplayResult{Findings: fs}
	for _, f := range fs {
		if f.Kind == r.Finding.Kind {
			res.Reproduced = true
		}
	}
	return res, nil
}

// play runs episodes in order and returns what the oracles found,
// including a /health check at the end.
func (e *engine) play(ctx context.Context, eps []Episode) []Finding {
	var out []Finding
	fr := rand.New(rand.NewPCG(1, 2))
	d := e.devices[0]
	for _, ep := range eps {
		var sendBuf []byte
		fill, sentToken := e.filler(ctx, fr, d, ep, &sendBuf)
		o := e.newOracle(d, ep, sentToken)
		runEpisode(ctx, e.cfg.URL, e.cfg.HTTPClient, ep, fill, o, e.timings, ep.Drop)
		out = append(out, o.findings...)
	}
	if err := checkHealth(ctx, e.cfg.HTTPClient, e.cfg.HealthURL); err != nil {
		out = append(out, Finding{Kind: KindHealth, Rule: kindRule[KindHealth], Message: "GET /health after replay: " + err.Error()})
	}
	return out
}

// reproduces reports whether eps still produce a finding of kind.
func (e *engine) reproduces(ctx context.Context, eps []Episode, kind string) bool {
	for _, f := range e.play(ctx, eps) {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// shrinkConfirmations is how many replays may confirm a finding before
// shrinking starts.
const shrinkConfirmations = 3

// shrink minimises the steps of a one-episode reproducer by delta
// debugging: it removes chunks of steps while the finding still occurs.
func (e *engine) shrink(ctx context.Context, ep Episode, kind string, budget time.Duration) (Episode, bool) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	// A live server is not deterministic (scheduling, timers, other
	// clients), so the finding gets a few chances to recur before the
	// episode is kept unshrunk.
	confirmed := false
	for range shrinkConfirmations {
		if confirmed = e.reproduces(ctx, []Episode{ep}, kind); confirmed || ctx.Err() != nil {
			break
		}
	}
	if !confirmed {
		return ep, false
	}
	steps := ep.Steps
	try := func(s []Step) bool {
		c := ep
		c.Steps = s
		return ctx.Err() == nil && e.reproduces(ctx, []Episode{c}, kind)
	}
	n := 2
	for len(steps) >= 2 && ctx.Err() == nil {
		chunk := (len(steps) + n - 1) / n
		reduced := false
		for i := 0; i < len(steps); i += chunk {
			comp := append(append([]Step(nil), steps[:i]...), steps[min(i+chunk, len(steps)):]...)
			if try(comp) {
				steps, reduced = comp, true
				n = max(n-1, 2)
				break
			}
		}
		if !reduced {
			if n >= len(steps) {
				break
			}
			n = min(n*2, len(steps))
		}
	}
	ep.Steps = steps
	return ep, true
}

// saveFindings shrinks every finding one connection made and writes a
// reproducer for each.
func (e *engine) saveFindings(ctx context.Context) {
	e.mu.Lock()
	list := append([]*found(nil), e.findings...)
	recent := append([]Episode(nil), e.recentEps...)
	e.mu.Unlock()
	if e.cfg.OutDir != "" {
		if err := os.MkdirAll(e.cfg.OutDir, 0o755); err != nil {
			return
		}
	}
	for _, f := range list {
		eps := f.episodes
		if len(eps) == 0 {
			eps = recent
		}
		if f.local && len(eps) == 1 && e.cfg.ShrinkBudget > 0 && ctx.Err() == nil && e.healthy(ctx) {
			if small, ok := e.shrink(ctx, eps[0], f.Kind, e.cfg.ShrinkBudget); ok {
				eps = []Episode{small}
				f.Shrunk = true
			}
		}
		for _, ep := range eps {
			f.Frames += ep.frames()
		}
		if e.cfg.OutDir == "" || len(eps) == 0 {
			continue
		}
		path := filepath.Join(e.cfg.OutDir, f.ID+".json")
		rep := &Reproducer{Format: ReproducerFormat, Finding: f.Finding, URL: e.cfg.URL, Seed: e.cfg.Seed, Episodes: eps}
		rep.Finding.Reproducer = ""
		if err := rep.Save(path); err == nil {
			f.Reproducer = path
		}
	}
}

func (e *engine) healthy(ctx context.Context) bool {
	return checkHealth(ctx, e.cfg.HTTPClient, e.cfg.HealthURL) == nil
}

// ErrReproduced is returned by callers that turn a replay into an exit
// status.
var ErrReproduced = errors.New("the finding reproduces")
