package server

import (
	"sync"
)

// maxRuns bounds the run table; the oldest runs are forgotten first.
const maxRuns = 4096

// runState follows one run (one Hermes turn) so that the frames sent for
// it never contradict each other: one run.started, one terminal frame,
// nothing after it (note 6).
type runState struct {
	id, task  string
	started   bool
	ended     bool
	iteration int
	nextIndex map[int]int    // per iteration: index of the next tool call (F-3)
	calls     map[string]int // call_id → index
}

// runTable holds the runs. Its mutex is held while a hook updates a run
// and publishes the resulting frames, so that frames of one run leave in
// the order of its state changes. Lock order: runTable.mu, then Server.mu.
type runTable struct {
	mu     sync.Mutex
	byID   map[string]*runState
	order  []string          // oldest first, for eviction
	active map[string]string // task → its unfinished run
}

func newRunTable() *runTable {
	return &runTable{byID: make(map[string]*runState), active: make(map[string]string)}
}

// getLocked returns the run, creating it when new.
func (t *runTable) getLocked(runID, task string) *runState {
	if r, ok := t.byID[runID]; ok {
		if r.task == "" {
			r.task = task
		}
		return r
	}
	r := &runState{id: runID, task: task, nextIndex: make(map[int]int), calls: make(map[string]int)}
	t.byID[runID] = r
	t.order = append(t.order, runID)
	if len(t.order) > maxRuns {
		old := t.byID[t.order[0]]
		delete(t.byID, t.order[0])
		if old != nil && t.active[old.task] == old.id {
			delete(t.active, old.task)
		}
		t.order = t.order[1:]
	}
	return r
}

// lookup returns the task of a run and whether the run has ended.
func (t *runTable) lookup(runID string) (task string, ended, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.byID[runID]
	if !ok {
		return "", false, false
	}
	return r.task, r.ended, true
}

// activeRun returns the task's unfinished run, if any.
func (t *runTable) activeRun(task string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.active[task]
}
