package campaign

import (
	"time"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Episode kinds.
const (
	EpSchema   = "schema"    // authenticate, then frames generated from the schemas
	EpPreAuth  = "preauth"   // frames before hello (F-2, note 10)
	EpHello    = "hello"     // mutated and refused hellos (P-4, P-6, P-8, note 9, note 11)
	EpDupHello = "dup-hello" // a second hello on an authenticated connection (note 16)
	EpResolve  = "resolve"   // resolving unknown, live and resolved approvals (I-2)
	EpReplayID = "replay-id" // requests that repeat a request_id (I-1)
	EpSession  = "session"   // a recorded valid session, mutated byte by byte
	EpStorm    = "storm"     // connect, hello, drop, at once (reconnect storm)
	EpPair     = "pair"      // pair a new device with a token (P-3, P-4)
	EpSlow     = "slow"      // a session with pauses between frames
)

var episodeWeights = []struct {
	kind   string
	weight int
}{
	{EpSchema, 40}, {EpPreAuth, 8}, {EpHello, 8}, {EpDupHello, 5}, {EpResolve, 8},
	{EpReplayID, 6}, {EpSession, 14}, {EpStorm, 6}, {EpPair, 1}, {EpSlow, 2},
}

// EpisodeKinds lists every episode kind.
func EpisodeKinds() []string {
	out := make([]string, len(episodeWeights))
	for i, e := range episodeWeights {
		out[i] = e.kind
	}
	return out
}

// episode generates the next episode.
func (g *gen) episode() Episode {
	total := 0
	for _, e := range episodeWeights {
		total += e.weight
	}
	k := g.r.IntN(total)
	for _, e := range episodeWeights {
		if k < e.weight {
			return g.episodeOf(e.kind)
		}
		k -= e.weight
	}
	return g.episodeOf(EpSchema)
}

func (g *gen) text1(typ string, p any) Step {
	return Step{Op: OpText, Data: g.encode(g.frame(typ, p)), Gen: MutValid}
}

func (g *gen) helloStep(mode int) Step { return g.text1(lmp.TypeHello, g.hello(mode)) }

// episodeOf generates an episode of the given kind.
func (g *gen) episodeOf(kind string) Episode {
	g.requestIDs = g.requestIDs[:0]
	ep := Episode{Kind: kind, MayAuth: kind != EpHello && kind != EpPreAuth}
	add := func(s ...Step) { ep.Steps = append(ep.Steps, s...) }
	fuzzed := func(n int) {
		for range n {
			add(g.mutateFrame(g.validFrame()))
		}
	}
	switch kind {
	case EpSchema:
		add(g.helloStep(helloDevice))
		fuzzed(1 + g.r.IntN(48))
		ep.Steps = endingLast(ep.Steps)
	case EpPreAuth:
		// The first frame is not a valid hello: the server must refuse at
		// once (note 10) and never hand out state (S-4).
		if g.chance(0.05) {
			// A hello padded with an array of small numbers under a key
			// that is not of the LMP form, 64 KiB to 1 MiB: the costliest
			// shape to decode, from a peer nobody has authenticated. A
			// server may refuse it for its size or accept it (V-1).
			ep.MayAuth = true
			h := g.frame(lmp.TypeHello, g.hello(helloDevice))
			n := (64 << 10) + g.r.IntN(lmp.MaxFrameBytes-(64<<10)-1024)
			h["payload"].(map[string]any)["Pad"] = zeroArray(n / 2)
			add(Step{Op: OpText, Data: g.encode(h), Gen: MutHuge})
		} else if g.chance(0.3) {
			// A mutated hello may still be acceptable (V-1): allow auth.
			ep.MayAuth = true
			h := g.frame(lmp.TypeHello, g.hello(helloDevice))
			add(g.applyMutation(g.pick([]string{MutType, MutMissing, MutBroken, MutUTF8, MutBinary, MutDeep}), h))
		} else {
			add(g.mutateFrame(g.validFrame()))
		}
		fuzzed(g.r.IntN(4))
		if g.chance(0.5) {
			add(g.helloStep(helloDevice))
			ep.MayAuth = true // a lenient server may accept a hello after junk
		}
	case EpHello:
		add(g.helloStep([]int{helloWrong, helloOther, helloBoth, helloVersion, helloWrong}[g.r.IntN(5)]))
		fuzzed(g.r.IntN(4))
	case EpDupHello:
		add(g.helloStep(helloDevice))
		for range 1 + g.r.IntN(3) {
			add(g.helloStep([]int{helloDevice, helloWrong, helloOther, helloToken, helloBoth}[g.r.IntN(5)]))
			fuzzed(g.r.IntN(3))
		}
	case EpResolve:
		add(g.helloStep(helloDevice))
		for range 1 + g.r.IntN(8) {
			p := g.object(g.s.types[lmp.TypeApprovalResolve], 0)
			add(g.mutateFrame(g.frame(lmp.TypeApprovalResolve, p)))
		}
		ep.Steps = endingLast(ep.Steps)
	case EpReplayID:
		add(g.helloStep(helloDevice))
		typ := g.pick([]string{lmp.TypeApprovalResolve, lmp.TypeTaskList, lmp.TypeApprovalResolve, lmp.TypeSessionSend})
		f := g.encode(g.frame(typ, g.object(g.s.types[typ], 0)))
		for range 2 + g.r.IntN(4) {
			add(Step{Op: OpText, Data: f, Gen: MutValid})
		}
	case EpSession:
		// A recorded valid session, then byte-level mutations of its
		// frames (never of the hello, which carries the secrets).
		add(g.helloStep(helloDevice))
		var session []Step
		for _, typ := range []string{lmp.TypePing, lmp.TypeTaskList, lmp.TypeApprovalResolve, lmp.TypeRunCancel, lmp.TypeRunPause, lmp.TypeRunResume, lmp.TypePong} {
			session = append(session, g.text1(typ, g.object(g.s.types[typ], 0)))
		}
		for range 1 + g.r.IntN(24) {
			s := session[g.r.IntN(len(session))]
			s.Data = g.flipBytes(s.Data)
			s.Gen = MutBytes
			add(s)
		}
		ep.Steps = endingLast(ep.Steps)
	case EpStorm:
		ep.Drop = true
		add(g.helloStep(helloDevice))
	case EpPair:
		add(g.helloStep(helloToken))
		fuzzed(g.r.IntN(4))
	case EpSlow:
		add(g.helloStep(helloDevice))
		for range 1 + g.r.IntN(4) {
			add(Step{Op: OpWait, Wait: time.Duration(10+g.r.IntN(150)) * time.Millisecond})
			fuzzed(1)
		}
	}
	return ep
}

// endingLast moves the first frame that ends the connection (binary,
// invalid UTF-8, over the read limit: 1003, 1007, 1009) to the end of the
// steps and drops any later one. A server reads nothing after such a frame,
// so the frames behind it were generated and never judged; now every frame
// of the episode reaches the server before the one that closes it.
func endingLast(steps []Step) []Step {
	out := steps[:0:0]
	ending := -1
	for i, s := range steps {
		if !endsConnection(s) {
			out = append(out, s)
		} else if ending < 0 {
			ending = i
		}
	}
	if ending >= 0 {
		out = append(out, steps[ending])
	}
	return out
}

// endsConnection reports whether every server must close the connection on
// step s (T-3, RFC 6455 §8.1, the read limit).
func endsConnection(s Step) bool {
	switch s.Op {
	case OpBinary:
		return true
	case OpText:
		return len(s.Data) > lmp.MaxFrameBytes || !utf8.Valid(s.Data)
	}
	return false
}
