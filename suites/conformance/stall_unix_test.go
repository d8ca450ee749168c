//go:build unix

package conformance

import (
	"bufio"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/childtest"
)

// The stall is made with SIGSTOP and SIGCONT, which only Unix has.

// stallChildEnv makes the test binary the stalled process of
// TestStallWatchSeesAStoppedProcess.
const stallChildEnv = "LMP_CONFORMANCE_STALL_CHILD"

// TestStallWatchSeesAStoppedProcess stops a process that runs a stall
// watch, as a loaded machine stalls lmp-check, and requires the watch to
// report the stop, also when the watch is stopped right after the stall,
// before its goroutine took the tick the stall delayed.
func TestStallWatchSeesAStoppedProcess(t *testing.T) {
	if os.Getenv(stallChildEnv) != "" {
		// The child: watch until stdin closes, then print the worst stall.
		w := WatchStalls()
		fmt.Println("watching")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Println(int64(w.Stop()))
		return
	}
	const stop = 800 * time.Millisecond
	child := childtest.Start(t, "TestStallWatchSeesAStoppedProcess", stallChildEnv)
	cmd, out := child.Cmd, child.Stdout
	if !out.Scan() || out.Text() != "watching" {
		t.Fatalf("the child did not start its watch: %q %v", out.Text(), out.Err())
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	time.Sleep(stop) // the stall under test, not a wait for something
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	held := time.Since(stopped)
	_ = child.Stdin.Close()
	var worst time.Duration
	for out.Scan() {
		var ns int64
		if _, err := fmt.Sscan(out.Text(), &ns); err == nil {
			worst = time.Duration(ns)
		}
	}
	// The signals take effect a little after the parent sends them, and
	// the stop can begin anywhere in a tick: the watch must see the stop,
	// less a tick and signalSlack.
	const signalSlack = 20 * time.Millisecond
	if want := held - StallTick - signalSlack; worst < want {
		t.Errorf("the process was stopped for %v; the watch saw a stall of %v, want at least %v", held.Round(time.Millisecond), worst, want.Round(time.Millisecond))
	}
}
