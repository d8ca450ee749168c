package reference_test

import (
	"testing"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/mockhermes"
	"github.com/loomi-lmp/lmpkit/reference"
)

// TestRealTurnsAreCoherentRuns plays the mock Hermes' turns the way a
// loaded Hermes delivers them (stream hooks interleaved across hooks, with
// turns of another platform and of subagents beside each one) and checks
// that the phone sees each turn as one coherent run in the task it asked
// in: one run.started first, one terminal frame last, tool calls paired,
// and nothing of the crosstalk (notes 17-19).
func TestRealTurnsAreCoherentRuns(t *testing.T) {
	inst := start(t, reference.Options{HermesQuirks: mockhermes.Faults{Interleave: true}, HermesCrosstalk: true})
	pr, err := client.Pair(ctxT(t), inst.PairURL, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _, _, err := client.PairDevice(ctxT(t), pr.URL, pr.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	cases := []struct {
		text, terminal string
		tools          int
	}{
		{"/mock tools", lmp.TypeRunCompleted, 5},
		{"/mock retry", lmp.TypeRunCompleted, 0},
		{"/mock oversize", lmp.TypeRunCompleted, 0},
		{"/mock fail", lmp.TypeRunFailed, 0},
	}
	tasks := map[string]bool{}
	for i, tc := range cases {
		rid := "rq-turn-" + string(rune('a'+i))
		if err := c.Send(ctxT(t), lmp.SessionSend{Text: tc.text, RequestID: rid}); err != nil {
			t.Fatal(err)
		}
		ack, err := c.Expect(ctxT(t), func(f client.Frame) bool { return f.Type == lmp.TypeAck })
		if err != nil {
			t.Fatal(err)
		}
		task := lmp.Deref(ack.TaskID)
		tasks[task] = true
		var fs []client.Frame
		for {
			f, err := c.Expect(ctxT(t), func(f client.Frame) bool {
				return f.RunID != nil || (f.Type != lmp.TypeNotification && f.Type != lmp.TypeAck && f.Type != lmp.TypePing)
			})
			if err != nil {
				t.Fatalf("%s: after %d frames: %v", tc.text, len(fs), err)
			}
			if !tasks[lmp.Deref(f.TaskID)] {
				t.Fatalf("%s: a frame of a task the phone never asked in (crosstalk shown): %s", tc.text, f.Raw)
			}
			fs = append(fs, f)
			if f.Type == lmp.TypeRunCompleted || f.Type == lmp.TypeRunFailed {
				break
			}
		}
		if fs[0].Type != lmp.TypeRunStarted {
			t.Fatalf("%s: first frame %s", tc.text, fs[0].Raw)
		}
		run := lmp.Deref(fs[0].RunID)
		starts, finishes := map[string]int{}, map[string]int{}
		for _, f := range fs {
			if lmp.Deref(f.RunID) != run || lmp.Deref(f.TaskID) != task {
				t.Fatalf("%s: frame of another run or task: %s", tc.text, f.Raw)
			}
			switch f.Type {
			case lmp.TypeRunStarted:
				if f.Seq != fs[0].Seq {
					t.Fatalf("%s: a second run.started: %s", tc.text, f.Raw)
				}
			case lmp.TypeRunToolStarted:
				s, _ := lmp.DecodePayload[lmp.RunToolStarted](f.Type, f.Payload)
				starts[s.CallID] = s.Index
			case lmp.TypeRunToolFinished:
				e, _ := lmp.DecodePayload[lmp.RunToolFinished](f.Type, f.Payload)
				idx, ok := starts[e.CallID]
				if !ok || idx != e.Index {
					t.Fatalf("%s: finish without its start: %s", tc.text, f.Raw)
				}
				finishes[e.CallID] = e.Index
			}
		}
		if last := fs[len(fs)-1]; last.Type != tc.terminal {
			t.Fatalf("%s: terminal frame %s, want %s", tc.text, last.Raw, tc.terminal)
		}
		if len(starts) != tc.tools || len(finishes) != tc.tools {
			t.Fatalf("%s: %d tool starts, %d finishes, want %d", tc.text, len(starts), len(finishes), tc.tools)
		}
		if tc.terminal == lmp.TypeRunCompleted {
			done, _ := lmp.DecodePayload[lmp.RunCompleted](fs[len(fs)-1].Type, fs[len(fs)-1].Payload)
			if done.Status != lmp.RunStatusCompleted || done.Text == "" || !done.Finished {
				t.Fatalf("%s: %+v", tc.text, done)
			}
		}
	}
}
