package campaign_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/fuzz/campaign"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestPausingEpisodesPlayBesideTheirWorker runs a campaign of one worker
// against the floor server and watches the order in which the server reads
// frames. An episode that pauses between frames (EpSlow) must not hold its
// worker: while it pauses, the worker plays the episodes that follow, so a
// frame of another connection is read between two of its frames. A worker
// that played its episodes in turn would never do that: each of its
// connections is over, and its frames read, before the next one opens.
//
// The campaign is stopped as soon as that is seen; seed 1's worker draws
// its first pausing episode within its first fifty.
func TestPausingEpisodesPlayBesideTheirWorker(t *testing.T) {
	ctx, seen := context.WithCancel(context.Background())
	defer seen()
	w := &interleaving{last: map[int64]int{}, fuzzed: map[int64]bool{}}
	floor := startFloorServer(t, func(conn int64, data []byte) {
		if w.read(conn, data) {
			seen()
		}
	})
	rep, err := campaign.Run(ctx, campaign.Config{
		URL: "ws://" + floor.addr + lmp.PathWebSocket, Duration: 2 * time.Minute, Seed: 1, Conns: 1,
		ShrinkBudget: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil {
		t.Fatalf("in %d episodes, %d frames read, no frame of a worker's connection was read between two frames of another: "+
			"the worker waited out every pause (episodes by kind: %v)", rep.Episodes, w.n(), rep.EpisodesByKind)
	}
}

// interleaving watches the frames a server reads for one of a connection
// that a worker opened read between two frames of another.
//
// The monitor sends its hello, then nothing but pings on its own clock and
// pongs; so a connection counts as a worker's once it has sent another
// frame after its hello. That leaves out a worker's episode that sends
// nothing but a sentinel ping too, which can only hide an interleaving,
// never make one up.
type interleaving struct {
	mu     sync.Mutex
	conns  []int64        // the connection of each frame read, in order
	last   map[int64]int  // connection → index of its last frame read
	fuzzed map[int64]bool // connection → it sent a frame the monitor never sends
}

var monitorFrames = [][]byte{[]byte(`{"v":1,"type":"ping","payload":{}}`), []byte(`{"v":1,"type":"pong","payload":{}}`)}

// read records one frame and reports whether it shows the interleaving.
func (w *interleaving) read(conn int64, data []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, opened := w.last[conn]
	if opened && !bytes.Equal(data, monitorFrames[0]) && !bytes.Equal(data, monitorFrames[1]) {
		w.fuzzed[conn] = true
	}
	w.conns = append(w.conns, conn)
	w.last[conn] = len(w.conns) - 1
	if !opened || !w.fuzzed[conn] {
		return false
	}
	for _, other := range w.conns[prev+1 : len(w.conns)-1] {
		if other != conn && w.fuzzed[other] {
			return true
		}
	}
	return false
}

func (w *interleaving) n() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.conns)
}
