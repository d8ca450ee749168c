package variant

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// leaseBlock is how many numbers a device reserves in the state file at a
// time: after a crash its numbering resumes above the lease, so a seq never
// goes back or repeats (E-2, note 4), at the cost of one file write per
// block.
const leaseBlock = 256

// maxPairs bounds the durable events a device's map remembers. The
// upstream replays at most its window (512 events), so older pairs are never
// looked up again.
const maxPairs = 2048

// aheadOfEverything is the upstream last_seq sent for a last_seq beyond
// anything the device was given: the upstream then answers truncated: true
// with nothing replayed, as for any last_seq ahead of it.
const aheadOfEverything = 1 << 52

// pair maps one durable upstream event to the numbers the device got for
// it: one, or two for a run.failed followed by its run.completed.
type pair struct {
	Up  int64   `json:"up"`
	Own []int64 `json:"own"`
}

// deviceSeq is one device's numbering.
type deviceSeq struct {
	Next  int64  `json:"next"`  // the last number given
	Lease int64  `json:"lease"` // numbers up to Lease are reserved in the file
	Pairs []pair `json:"pairs"` // ascending by Up and by Own

	// Own numbers in (LostAbove, LostUpTo] were given before a crash and
	// their pairs are lost: a last_seq among them is answered with
	// truncated: true.
	LostAbove int64 `json:"lost_above,omitempty"`
	LostUpTo  int64 `json:"lost_up_to,omitempty"`
	// PrunedUpTo is the highest own number whose pair was pruned, and
	// PrunedUp its upstream seq.
	PrunedUpTo int64 `json:"pruned_up_to,omitempty"`
	PrunedUp   int64 `json:"pruned_up,omitempty"`
}

// numbering is every device's numbering, persisted in one JSON file.
type numbering struct {
	mu      sync.Mutex
	path    string
	devices map[string]*deviceSeq
}

type stateFile struct {
	Clean   bool                  `json:"clean"` // written by Close, not by a lease
	Devices map[string]*deviceSeq `json:"devices"`
}

// openNumbering loads the state file at path, or starts empty. A file not
// written by a clean close means the proxy crashed: every device resumes
// above its lease and the pairs given since the file was written are lost.
func openNumbering(path string) (*numbering, error) {
	n := &numbering{path: path, devices: map[string]*deviceSeq{}}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return n, nil
	}
	if err != nil {
		return nil, err
	}
	var st stateFile
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("variant: state file %s: %w", path, err)
	}
	for id, d := range st.Devices {
		if !st.Clean {
			d.LostAbove = d.lastOwn()
			d.LostUpTo = d.Lease
			d.Next = d.Lease
		}
		n.devices[id] = d
	}
	return n, nil
}

func (d *deviceSeq) lastOwn() int64 {
	if len(d.Pairs) == 0 {
		return max(d.PrunedUpTo, d.LostUpTo)
	}
	own := d.Pairs[len(d.Pairs)-1].Own
	return own[len(own)-1]
}

func (n *numbering) device(id string) *deviceSeq {
	d := n.devices[id]
	if d == nil {
		d = &deviceSeq{}
		n.devices[id] = d
	}
	return d
}

// take gives the device its next number, extending the lease first when
// it runs out. Called with n.mu held.
func (n *numbering) take(id string) (int64, error) {
	d := n.device(id)
	if d.Next+1 > d.Lease {
		d.Lease = d.Next + leaseBlock
		if err := n.saveLocked(false); err != nil {
			d.Lease = d.Next
			return 0, err
		}
	}
	d.Next++
	return d.Next, nil
}

// Next numbers a connection frame (hello.ok, error, ping, pong, reply,
// task.list.result): every frame takes a seq here.
func (n *numbering) Next(id string) (int64, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.take(id)
}

// Current is the device's last number, which a connection frame carries
// without advancing it (note 2's preferred answer).
func (n *numbering) Current(id string) int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.device(id).Next
}

// Durable returns the count numbers of the durable upstream event up for
// the device: those it got before when the event is re-sent (E-7), or new
// ones.
func (n *numbering) Durable(id string, up int64, count int) ([]int64, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	d := n.device(id)
	i := sort.Search(len(d.Pairs), func(i int) bool { return d.Pairs[i].Up >= up })
	if i < len(d.Pairs) && d.Pairs[i].Up == up {
		return d.Pairs[i].Own, nil
	}
	own := make([]int64, count)
	for k := range own {
		s, err := n.take(id)
		if err != nil {
			return nil, err
		}
		own[k] = s
	}
	d.Pairs = append(d.Pairs, pair{})
	copy(d.Pairs[i+1:], d.Pairs[i:])
	d.Pairs[i] = pair{Up: up, Own: own}
	if len(d.Pairs) > maxPairs {
		old := d.Pairs[0]
		d.PrunedUpTo, d.PrunedUp = old.Own[len(old.Own)-1], old.Up
		d.Pairs = append(d.Pairs[:0:0], d.Pairs[1:]...)
	}
	return own, nil
}

// UpstreamLastSeq translates the device's last_seq into the upstream's.
// truncate is set when the gap after lastSeq can no longer be told, and
// hello.ok must then say truncated: true (E-6).
func (n *numbering) UpstreamLastSeq(id string, lastSeq int64) (up int64, truncate bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	d := n.devices[id]
	switch {
	case d == nil, lastSeq <= 0:
		// An unknown device is the upstream's to refuse.
		return 0, false
	case lastSeq > d.Next:
		return aheadOfEverything, false
	case lastSeq > d.LostAbove && lastSeq <= d.LostUpTo, lastSeq <= d.PrunedUpTo:
		// Replay from the oldest event still known: events the device may
		// have seen come again under new numbers, and truncated tells it
		// to re-fetch.
		if len(d.Pairs) > 0 {
			return d.Pairs[0].Up - 1, true
		}
		return d.PrunedUp, true
	}
	up = d.PrunedUp
	for _, p := range d.Pairs {
		if p.Own[0] > lastSeq {
			break
		}
		up = p.Up
	}
	return up, false
}

// Close writes the state file as a clean one.
func (n *numbering) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.saveLocked(true)
}

func (n *numbering) saveLocked(clean bool) error {
	raw, err := json.Marshal(stateFile{Clean: clean, Devices: n.devices})
	if err != nil {
		return err
	}
	tmp := n.path + ".tmp"
	if err := os.MkdirAll(filepath.Dir(n.path), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, n.path)
}
