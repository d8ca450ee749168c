package variant

import (
	"path/filepath"
	"slices"
	"testing"
)

// Durable events keep their numbers when re-sent; connection frames take
// numbers of their own; a last_seq translates to the upstream event it
// follows.
func TestNumberingMapsReplays(t *testing.T) {
	n, err := openNumbering(filepath.Join(t.TempDir(), "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	must := func(v []int64, err error) []int64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	next := func() []int64 {
		v, err := n.Next("d")
		return must([]int64{v}, err)
	}
	hello := next()                  // 1
	a := must(n.Durable("d", 10, 1)) // 2
	pong := next()                   // 3
	b := must(n.Durable("d", 11, 2)) // 4, 5: run.failed and its run.completed
	if again := must(n.Durable("d", 10, 1)); !slices.Equal(again, a) {
		t.Errorf("re-sent event numbered %v, first %v", again, a)
	}
	if got := []int64{hello[0], a[0], pong[0], b[0], b[1]}; !slices.Equal(got, []int64{1, 2, 3, 4, 5}) {
		t.Errorf("numbers %v", got)
	}
	for last, want := range map[int64]int64{0: 0, 1: 0, 2: 10, 3: 10, 4: 11, 5: 11} {
		if up, trunc := n.UpstreamLastSeq("d", last); up != want || trunc {
			t.Errorf("last_seq %d: upstream %d (truncated %v), want %d", last, up, trunc, want)
		}
	}
	if up, _ := n.UpstreamLastSeq("d", 99); up != aheadOfEverything {
		t.Errorf("a last_seq ahead of the device: upstream %d", up)
	}
}

// After a crash (no clean close), numbering resumes above the lease and a
// last_seq in the lost range is answered truncated (note 4); after a clean
// close, nothing is lost.
func TestNumberingSurvivesRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	n, _ := openNumbering(path)
	for i := range 3 {
		if _, err := n.Durable("d", int64(100+i), 1); err != nil {
			t.Fatal(err)
		}
	}
	// A crash: the file is the one the lease wrote before the first number.
	crashed, err := openNumbering(path)
	if err != nil {
		t.Fatal(err)
	}
	next, _ := crashed.Next("d")
	if next <= 3 {
		t.Errorf("after a crash the numbering went back to %d", next)
	}
	if _, trunc := crashed.UpstreamLastSeq("d", 2); !trunc {
		t.Error("a last_seq lost in the crash was not answered truncated")
	}
	// A clean close keeps every pair.
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	clean, _ := openNumbering(path)
	if up, trunc := clean.UpstreamLastSeq("d", 2); up != 101 || trunc {
		t.Errorf("after a clean restart, last_seq 2: upstream %d truncated %v", up, trunc)
	}
	if own, _ := clean.Durable("d", 102, 1); own[0] != 3 {
		t.Errorf("after a clean restart a re-sent event got %v, want [3]", own)
	}
}
