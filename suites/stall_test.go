package suites

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/reference"
)

// stallChildEnv makes the test binary the stalled process of
// TestStallWatchSeesAStoppedProcess.
const stallChildEnv = "LMP_SUITES_STALL_CHILD"

// TestStallWatchSeesAStoppedProcess stops a process that runs a stall
// watch, as a loaded machine stalls lmp-check, and requires the watch to
// report the stop: at least its length less one tick, since the stop can
// begin anywhere in a tick.
func TestStallWatchSeesAStoppedProcess(t *testing.T) {
	if os.Getenv(stallChildEnv) != "" {
		// The child: watch until stdin closes, then print the worst stall.
		w := watchStalls()
		fmt.Println("watching")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Println(int64(w.stop()))
		return
	}
	const stop = 800 * time.Millisecond
	cmd := exec.Command(os.Args[0], "-test.run", "^TestStallWatchSeesAStoppedProcess$")
	cmd.Env = append(os.Environ(), stallChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	out := bufio.NewScanner(stdout)
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
	_ = stdin.Close()
	var worst time.Duration
	for out.Scan() {
		var ns int64
		if _, err := fmt.Sscan(out.Text(), &ns); err == nil {
			worst = time.Duration(ns)
		}
	}
	if want := held - stallTick; worst < want {
		t.Errorf("the process was stopped for %v; the watch saw a stall of %v, want at least %v", held.Round(time.Millisecond), worst, want.Round(time.Millisecond))
	}
	if got := stalled(worst, stallMargin(reference.ShortProfile.WithDefaults())); !strings.Contains(got, "the machine stalled") {
		t.Errorf("a stall of %v is not called one at the short profile: %q", worst, got)
	}
}

// TestRetryStalled: an attempt that judged the machine is run once more;
// the second is kept whatever it saw, an error ends the probe at once, and
// the report notes every attempt not taken at its word.
func TestRetryStalled(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		late  []string // what each attempt returns
		err   error
		calls int
		notes []string
	}{
		{"on time", []string{""}, nil, 1, nil},
		{"stalled once", []string{"stall A", ""}, nil, 2, []string{"attempt 1 discarded and run again: stall A"}},
		{"stalled twice", []string{"stall A", "stall B", ""}, nil, 2, []string{"attempt 1 discarded and run again: stall A", "attempt 2 of 2 kept although stall B"}},
		{"error", []string{"stall A"}, boom, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n notes
			calls := 0
			err := retryStalled(&n, func() (string, error) {
				calls++
				return tc.late[calls-1], tc.err
			})
			if !errors.Is(err, tc.err) || calls != tc.calls || strings.Join(n, "|") != strings.Join(tc.notes, "|") {
				t.Errorf("got err %v, %d calls, notes %q; want err %v, %d calls, notes %q", err, calls, n, tc.err, tc.calls, tc.notes)
			}
		})
	}
}

// notes collects what retryStalled notes.
type notes []string

func (n *notes) Notef(format string, args ...any) { *n = append(*n, fmt.Sprintf(format, args...)) }
