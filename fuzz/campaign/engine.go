package campaign

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// engine is one running campaign.
type engine struct {
	cfg     Config
	secrets *secretSet
	timings connTimings
	start   time.Time
	devices []client.Device
	devIDs  map[string]bool
	recent  recentIDs
	pausing chan struct{} // a slot for each episode played beside its worker

	framesSent, framesRecv, episodes atomic.Int64

	mu        sync.Mutex
	responses map[string]int64
	byKind    map[string]int64
	findings  []*found
	seen      map[string]*found // signature → finding
	dupes     int64
	recentEps []Episode // the last episodes played, for findings no one connection made
}

// found is a finding with what is needed to reproduce it.
type found struct {
	Finding
	episodes []Episode // the failing episode, or the recent ones for a global finding
	local    bool      // one connection's oracle found it: shrinkable
	count    int64
}

func newEngine(cfg Config) *engine {
	return &engine{
		cfg: cfg, secrets: newSecretSet(), timings: campaignTimings, start: time.Now(),
		pausing:   make(chan struct{}, cfg.Conns),
		responses: map[string]int64{}, byKind: map[string]int64{}, seen: map[string]*found{},
		devIDs: map[string]bool{},
	}
}

// variable parts of a finding's message, ignored when telling findings
// apart: numbers and secret fingerprints.
var digits = regexp.MustCompile(`<redacted>:[0-9a-f]{8}|[0-9]+`)

// report records findings; duplicates (same kind and message up to
// numbers) are counted, not kept.
func (e *engine) report(fs []Finding, episodes []Episode, local bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range fs {
		sig := f.Kind + "|" + digits.ReplaceAllString(f.Message, "#")
		if prev, ok := e.seen[sig]; ok {
			prev.count++
			e.dupes++
			continue
		}
		if len(e.findings) >= e.cfg.MaxFindings {
			e.dupes++
			continue
		}
		f.At = time.Since(e.start).Seconds()
		f.ID = fmt.Sprintf("F%03d-%s", len(e.findings)+1, f.Kind)
		x := &found{Finding: f, episodes: episodes, local: local, count: 1}
		e.findings = append(e.findings, x)
		e.seen[sig] = x
	}
}

func (e *engine) findingCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.findings)
}

// newOracle makes the oracle for one connection of device d.
func (e *engine) newOracle(d client.Device, ep Episode, sentToken bool) *connOracle {
	return &connOracle{
		validate: e.cfg.Validate, validateParses: e.cfg.validateParses, secrets: e.secrets, poolDevice: func(id string) bool { return e.devIDs[id] },
		device: d.ID, mayAuth: ep.MayAuth, sentToken: sentToken, seen: e.recent.harvest,
	}
}

// filler returns the placeholder filler for one episode. Tokens are minted
// only for episodes that use one. A filled frame is written into *buf,
// which the caller keeps from episode to episode: it is valid until the
// next frame is filled.
func (e *engine) filler(ctx context.Context, r *rand.Rand, d client.Device, ep Episode, buf *[]byte) (func([]byte) []byte, bool) {
	other := e.devices[r.IntN(len(e.devices))]
	if other.ID == d.ID {
		// {{other_device}} must name a different device, or a hello
		// pairing it with this credential would rightly succeed.
		other = e.devices[(slices.Index(e.devices, d)+1)%len(e.devices)]
	}
	vals := map[string]string{
		PhDeviceID: d.ID, PhCredential: d.Credential, PhOtherID: other.ID,
		PhApproval: e.recent.pick(r, 0), PhRunID: e.recent.pick(r, 1), PhTaskID: e.recent.pick(r, 2),
	}
	sentToken := false
	if ep.usesToken() {
		tok, err := e.mintToken(ctx)
		if err == nil {
			vals[PhToken], sentToken = tok, true
		} else {
			vals[PhToken] = "pt_unminted_" + strconv.FormatUint(r.Uint64(), 36)
		}
	}
	return func(b []byte) []byte {
		out := fill(*buf, b, vals)
		if len(b) > 0 && &out[0] != &b[0] {
			*buf = out // keep the grown buffer; never the step's own bytes
		}
		return out
	}, sentToken
}

// worker opens episode after episode until ctx ends.
//
// An episode that pauses between its frames (EpSlow) spends nearly all of
// its time waiting: played in turn, the pauses of one episode in fifty
// held the workers idle for almost half of a campaign. So it is played
// beside the worker, on a goroutine of its own, while the worker goes on
// to the next episode; at most Conns such episodes play at once, and when
// that many do, the worker plays it in turn. Every episode is still drawn
// from the worker's generator in the same order, so the episodes of a seed
// do not change, only how many connections are open at once.
func (e *engine) worker(ctx context.Context, id int) {
	seed := e.cfg.Seed ^ (uint64(id+1) * 0x9e3779b97f4a7c15)
	g := newGen(seed, e.cfg.Schemas)
	var sendBuf []byte // filled frames, one at a time
	var aside sync.WaitGroup
	defer aside.Wait()
	for n := 0; ctx.Err() == nil; n++ {
		ep := g.episode()
		d := e.devices[g.r.IntN(len(e.devices))]
		storm := 1
		if ep.Drop {
			storm = 2 + g.r.IntN(6) // a reconnect storm: the same episode, again and again
		}
		// Filling placeholders draws from its own stream, so that what the
		// server said never shifts the episodes that follow.
		fr := rand.New(rand.NewPCG(seed, uint64(n)))
		if ep.pauses() {
			select {
			case e.pausing <- struct{}{}:
				aside.Go(func() {
					defer func() { <-e.pausing }()
					var buf []byte
					e.playEpisode(ctx, id, n, ep, d, fr, storm, &buf)
				})
				continue
			default:
			}
		}
		e.playEpisode(ctx, id, n, ep, d, fr, storm, &sendBuf)
	}
}

// playEpisode plays episode n of worker id storm times on device d, filling its
// placeholders from fr and its frames into *buf, and records what the
// oracles found.
func (e *engine) playEpisode(ctx context.Context, id, n int, ep Episode, d client.Device, fr *rand.Rand, storm int, buf *[]byte) {
	for range storm {
		fillFn, sentToken := e.filler(ctx, fr, d, ep, buf)
		o := e.newOracle(d, ep, sentToken)
		res := runEpisode(ctx, e.cfg.URL, e.cfg.HTTPClient, ep, fillFn, o, e.timings, ep.Drop)
		if res.dialErr != nil && ctx.Err() != nil {
			return // the campaign ended during the dial
		}
		e.account(ep, res, o)
		fs := o.findings
		if ctx.Err() != nil {
			// The campaign's end cut the episode short: how it closed
			// says nothing about the server.
			fs = dropKinds(fs, KindAbruptClose, KindCloseCode)
		}
		for i := range fs {
			fs[i].Episode = ep.Kind
			fs[i].Message += fmt.Sprintf(" [worker %d, episode %d]", id, n)
		}
		if len(fs) > 0 {
			e.report(fs, []Episode{ep}, true)
		}
	}
}

func dropKinds(fs []Finding, kinds ...string) []Finding {
	out := fs[:0]
	for _, f := range fs {
		keep := true
		for _, k := range kinds {
			if f.Kind == k {
				keep = false
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

func (e *engine) account(ep Episode, res episodeResult, o *connOracle) {
	e.episodes.Add(1)
	defer func() {
		e.mu.Lock()
		if len(e.recentEps) >= 16 {
			e.recentEps = e.recentEps[1:]
		}
		e.recentEps = append(e.recentEps, ep)
		e.mu.Unlock()
	}()
	e.framesSent.Add(int64(res.sent))
	e.framesRecv.Add(int64(res.received))
	e.mu.Lock()
	defer e.mu.Unlock()
	e.byKind[ep.Kind]++
	for k := range o.responses {
		e.responses[k]++
	}
	if res.dialErr != nil {
		e.responses["dial-error"]++
	}
}

// recentIDs remembers approval, run and task ids seen on any connection,
// so that generated frames can name live ones.
type recentIDs struct {
	mu  sync.Mutex
	ids [3][]string
}

const recentMax = 32

func (r *recentIDs) add(kind int, id string) {
	if id == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.ids[kind]
	if len(l) > 0 && l[len(l)-1] == id {
		return
	}
	if len(l) >= recentMax {
		l = l[1:]
	}
	r.ids[kind] = append(l, id)
}

func (r *recentIDs) pick(rng *rand.Rand, kind int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.ids[kind]
	if len(l) == 0 {
		return []string{"appr_none", "run_none", "task_none"}[kind]
	}
	return l[rng.IntN(len(l))]
}

func (r *recentIDs) harvest(f wireFrame) {
	switch f.Type {
	case lmp.TypeApprovalRequired, lmp.TypeRunStarted, lmp.TypeAck:
	default:
		return
	}
	var p struct {
		ApprovalID *string `json:"approval_id"`
		RunID      *string `json:"run_id"`
		TaskID     *string `json:"task_id"`
	}
	if decodeSmall(f.Payload, &p) != nil {
		return
	}
	r.add(0, lmp.Deref(p.ApprovalID))
	r.add(1, lmp.Deref(p.RunID))
	r.add(2, lmp.Deref(p.TaskID))
}
