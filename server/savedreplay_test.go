package server_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
	"github.com/loomi-lmp/lmpkit/server/store"
)

// sameFrames fails unless got re-sends want byte for byte: the same seq,
// event_id, ts and content (E-7).
func sameFrames(t *testing.T, what string, got, want []client.Frame) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d frames, want %d", what, len(got), len(want))
	}
	for i := range got {
		if string(got[i].Raw) != string(want[i].Raw) {
			t.Fatalf("%s: frame %d is\n  %s\nwant\n  %s", what, i+1, got[i].Raw, want[i].Raw)
		}
	}
}

// cleanRestart stops e's server gracefully and starts a new one on the
// same data directory.
func cleanRestart(t *testing.T, e *env) *env {
	t.Helper()
	e.stop()
	return newEnvIn(t, e.dir)
}

// TestCleanRestartReplaysExactly: the replay buffer survives a clean
// restart (note 4): a gap from before it is re-sent with its original seq
// and content and truncated: false, for a device that was online and one
// that was offline (note 3), across two restarts; numbering goes on above.
func TestCleanRestartReplaysExactly(t *testing.T) {
	e := newEnv(t)
	a, da := e.pair()
	off, doff := e.pair()
	off.CloseNow()
	e.notify(5, "before")
	seen := takeNotifications(t, a, 5)

	e = cleanRestart(t, e)
	if !strings.Contains(e.logs.String(), "replay buffer restored") {
		t.Errorf("the start does not say it restored the buffer:\n%s", e.logs)
	}
	c, ok := e.connect(da, ptr(seen[1].Seq))
	if ok.Truncated {
		t.Fatal("a gap within the window was answered truncated after a clean restart")
	}
	sameFrames(t, "gap re-sent after a clean restart", takeNotifications(t, c, 3), seen[2:])
	c.CloseNow()
	o, ok := e.connect(doff, ptr(int64(0)))
	if ok.Truncated {
		t.Fatal("the offline device's gap was answered truncated after a clean restart")
	}
	if got := takeNotifications(t, o, 5); got[0].Seq != 1 || got[4].Seq != 5 || textOf(t, got[4]) != "before4" {
		t.Fatalf("offline device re-sent seq %d..%d, last %q", got[0].Seq, got[4].Seq, textOf(t, got[4]))
	}
	o.CloseNow()

	// One more event, and a second restart: the buffer holds both starts' events.
	e.notify(1, "after")
	e = cleanRestart(t, e)
	c, ok = e.connect(da, ptr(int64(0)))
	if ok.Truncated {
		t.Fatal("truncated after the second clean restart")
	}
	again := takeNotifications(t, c, 6)
	sameFrames(t, "gap re-sent after two clean restarts", again[:5], seen)
	if again[5].Seq != 6 || textOf(t, again[5]) != "after0" {
		t.Fatalf("event after the first restart re-sent as seq %d %q", again[5].Seq, textOf(t, again[5]))
	}
	e.notify(1, "live")
	if f := takeNotifications(t, c, 1)[0]; f.Seq != 7 {
		t.Fatalf("first event after the second restart has seq %d, want 7", f.Seq)
	}
}

// TestRestartKeepsTheNewestWindow: a buffer saved with a larger
// ReplayWindow than the next start's keeps its newest events only, and
// an older gap is truncated (E-6).
func TestRestartKeepsTheNewestWindow(t *testing.T) {
	e := newEnv(t)
	a, d := e.pair()
	e.notify(8, "n")
	seen := takeNotifications(t, a, 8)
	e.stop()
	e = newEnvIn(t, e.dir, func(c *server.Config) { c.ReplayWindow = 4 })
	c, ok := e.connect(d, ptr(int64(4)))
	if ok.Truncated {
		t.Fatal("a gap of the window's size was answered truncated")
	}
	sameFrames(t, "the newest window re-sent", takeNotifications(t, c, 4), seen[4:])
	if _, ok := e.connect(d, ptr(int64(3))); !ok.Truncated {
		t.Fatal("a gap older than the smaller window was not truncated")
	}
}

// damageSavedReplay runs damage on the store's saved replay buffer with
// bbolt directly, below the store's checks, as a disk or an editor might.
func damageSavedReplay(t *testing.T, dir string, damage func(*bolt.Bucket) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, store.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return damage(tx.Bucket([]byte("replay"))) }); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedSavedReplayIsTruncated: a saved buffer whose bytes changed,
// or that holds no event frames, or that lost an event, never stops the
// server: it starts with an empty buffer, says so in one log line,
// answers the gap with truncated: true and serves on.
func TestDamagedSavedReplayIsTruncated(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(*bolt.Bucket) error
		want   string
	}{
		{"a flipped byte", func(b *bolt.Bucket) error {
			k, v := b.Cursor().Last()
			v = append([]byte(nil), v...)
			v[len(v)-3] ^= 1
			return b.Put(k, v)
		}, "fails its checksum"},
		{"a lost event", func(b *bolt.Bucket) error {
			return b.Delete([]byte{0, 0, 0, 0, 0, 0, 0, 3}) // global index 3
		}, "event 4 follows event 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			a, d := e.pair()
			e.notify(5, "n")
			takeNotifications(t, a, 5)
			e.stop()
			damageSavedReplay(t, e.dir, tc.damage)
			damagedStart(t, e.dir, d, tc.want)
		})
	}
	t.Run("frames that are no events", func(t *testing.T) {
		e := newEnv(t)
		a, d := e.pair()
		e.notify(5, "n")
		takeNotifications(t, a, 5)
		e.stop()
		st, err := store.Open(e.dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		var junk []store.SavedEvent
		for g := int64(1); g <= 5; g++ {
			junk = append(junk, store.SavedEvent{Index: g, Frame: []byte(`{"v":1,"seq":` + fmt.Sprint(g) + `,"type":"pong"}`)})
		}
		if err := st.SaveReplay(junk); err != nil {
			t.Fatal(err)
		}
		st.Close()
		damagedStart(t, e.dir, d, "does not start with its own seq")
	})
}

// damagedStart starts a server on dir, whose saved buffer is damaged, and
// checks that it says why in one line, truncates d's gap and serves.
func damagedStart(t *testing.T, dir string, d client.Device, why string) {
	t.Helper()
	e := newEnvIn(t, dir)
	var lines []string
	for _, l := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(l, "replay buffer") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "replay buffer not restored") || !strings.Contains(lines[0], why) {
		t.Fatalf("want one line saying the buffer was not restored, with %q; the log:\n%s", why, e.logs)
	}
	c, ok := e.connect(d, ptr(int64(2)))
	if !ok.Truncated {
		t.Fatal("a gap whose saved buffer is damaged was not answered truncated")
	}
	e.notify(1, "live")
	if f := takeNotifications(t, c, 1)[0]; f.Seq <= 5 {
		t.Fatalf("event after the damaged start has seq %d, not above 5", f.Seq)
	}
	e.pair() // pairing works too
}

// crashChildEnv names the data directory of TestCrashLosesTheBufferNotSeq's
// child process.
const crashChildEnv = "LMP_TEST_CRASH_CHILD_DIR"

// TestCrashLosesTheBufferNotSeq: a server killed with SIGKILL after a clean
// restart saves nothing; its successor does not use the buffer of the
// older clean stop (the events after it are lost), answers every gap from
// before it with truncated: true, and numbers new events above every seq
// given before the crash (note 4).
func TestCrashLosesTheBufferNotSeq(t *testing.T) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		serveUntilKilled(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts and kills a server process")
	}
	e := newEnv(t)
	a, d := e.pair()
	e.notify(5, "clean")
	takeNotifications(t, a, 5)
	e.stop()

	// The child loads the buffer, publishes two events, and is killed.
	child := exec.Command(os.Args[0], "-test.run=^TestCrashLosesTheBufferNotSeq$")
	child.Env = append(os.Environ(), crashChildEnv+"="+e.dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	addr := ""
	for sc := bufio.NewScanner(out); addr == "" && sc.Scan(); {
		addr, _ = strings.CutPrefix(sc.Text(), "listening on ")
	}
	if addr == "" {
		t.Fatal("the child server exited without saying where it listens")
	}
	wsURL := "ws://" + addr + lmp.PathWebSocket
	c, ok, err := client.Connect(ctxT(t), wsURL, d, ptr(int64(2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok.Truncated {
		t.Fatal("the child did not restore the buffer of the clean stop")
	}
	got := takeNotifications(t, c, 5) // 3, 4, 5 re-sent; 6, 7 new
	if got[4].Seq != 7 {
		t.Fatalf("the child's events end at seq %d, want 7", got[4].Seq)
	}
	c.CloseNow()
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	e = newEnvIn(t, e.dir)
	if !strings.Contains(e.logs.String(), "did not stop cleanly") {
		t.Errorf("the start after the crash does not say the saved buffer is stale:\n%s", e.logs)
	}
	for _, last := range []int64{7, 5, 2} {
		if _, ok := e.connect(d, ptr(last)); !ok.Truncated {
			t.Fatalf("last_seq %d after a crash: not truncated, but events 6 and 7 were lost", last)
		}
	}
	c, _ = e.connect(d, nil)
	e.notify(1, "after the crash")
	if f := takeNotifications(t, c, 1)[0]; f.Seq <= 7 {
		t.Fatalf("the first event after the crash has seq %d; the device had seq 7 (note 4)", f.Seq)
	}
}

// serveUntilKilled is the child process of TestCrashLosesTheBufferNotSeq:
// a server on dir that publishes two notifications, prints its address
// and serves until it is killed.
func serveUntilKilled(dir string) {
	srv, err := server.New(server.Config{Name: "crash", DataDir: dir, Hermes: struct{ hermes.Hermes }{},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i := range 2 {
		srv.Send(context.Background(), "task_n", fmt.Sprintf("child%d", i), nil)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("listening on", ln.Addr())
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	_ = hs.Serve(ln)
}

// BenchmarkShutdown measures a clean Shutdown (and the next start, which
// loads the buffer back) with an empty replay buffer, the baseline, and
// with a full one (the spec's window of 512 events) of typical
// notifications and of 64 KiB ones. Each iteration publishes into a new
// server; only Shutdown and New are timed.
func BenchmarkShutdown(b *testing.B) {
	for _, bc := range []struct {
		name   string
		events int
		size   int
	}{{"empty", 0, 0}, {"full-200B", lmp.DefaultReplayWindow, 200}, {"full-64KiB", lmp.DefaultReplayWindow, 64 << 10}} {
		b.Run(bc.name, func(b *testing.B) {
			text := strings.Repeat("x", bc.size)
			var stop, start time.Duration
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				srv, err := server.New(server.Config{DataDir: dir, Hermes: struct{ hermes.Hermes }{}})
				if err != nil {
					b.Fatal(err)
				}
				for range bc.events {
					srv.Send(context.Background(), "task_b", text, nil)
				}
				b.StartTimer()
				t0 := time.Now()
				if err := srv.Shutdown(context.Background()); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				srv, err = server.New(server.Config{DataDir: dir, Hermes: struct{ hermes.Hermes }{}})
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				stop, start = stop+t1.Sub(t0), start+t2.Sub(t1)
				b.StopTimer()
				_ = srv.Shutdown(context.Background())
				b.StartTimer()
			}
			b.ReportMetric(float64(stop.Microseconds())/float64(b.N), "µs-shutdown/op")
			b.ReportMetric(float64(start.Microseconds())/float64(b.N), "µs-start/op")
		})
	}
}
