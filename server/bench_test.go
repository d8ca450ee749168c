package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/internal/cputime"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// The benchmarks run over real loopback sockets. Each LMP figure has a
// baseline measured in the same run: a bare coder/websocket server that
// broadcasts pre-rendered bytes through a per-connection goroutine and
// queue, with no envelope rendering, log, auth or heartbeat.

// benchBatch is how many events are published before waiting for every
// reader to catch up; the LMP replay window and the baseline's queues are
// this deep, so a burst never trips the slow-consumer policy, which is
// not what is measured here.
const benchBatch = 1024

// benchPayload is a notification of typical size.
var benchPayload = strings.Repeat("x", 200)

// tally counts the frames every reader still has to receive and signals
// when the count reaches zero, so that waiting costs no CPU (a spinning
// wait would compete with the server for the same cores).
type tally struct {
	left atomic.Int64
	done chan struct{}
}

func newTally() *tally { return &tally{done: make(chan struct{}, 1)} }

// expect adds n frames to wait for; call it before they can arrive.
func (t *tally) expect(n int64) { t.left.Add(n) }

func (t *tally) got() {
	if t.left.Add(-1) == 0 {
		t.done <- struct{}{}
	}
}

// wait blocks until every expected frame arrived.
func (t *tally) wait(b *testing.B) {
	select {
	case <-t.done:
	case <-time.After(2 * time.Minute):
		b.Fatalf("readers still miss %d frames", t.left.Load())
	}
}

// reader reads text frames into one reused buffer, allocating nothing, so
// that the allocation figures are the server's.
type reader struct {
	ws *websocket.Conn
	t  *tally
}

func (r *reader) run() {
	buf := make([]byte, 4096)
	for {
		_, rd, err := r.ws.Reader(context.Background())
		if err != nil {
			return
		}
		for {
			_, err := rd.Read(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				return
			}
		}
		r.t.got()
	}
}

// delivery measures a timed stretch of frame delivery: wall time, the
// CPU time of the whole process (server and clients run in it) and its heap
// allocations, reported per delivered frame.
type delivery struct {
	start   time.Time
	cpu     time.Duration
	mallocs uint64
}

func startDelivery() delivery {
	return delivery{start: time.Now(), cpu: cputime.Process(), mallocs: mallocs()}
}

func (d delivery) report(b *testing.B, frames int) {
	wall := time.Since(d.start)
	cpu := cputime.Process() - d.cpu
	m := mallocs() - d.mallocs
	b.ReportMetric(float64(frames)/wall.Seconds(), "frames/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(frames), "cpu-ns/frame")
	b.ReportMetric(float64(m)/float64(frames), "allocs/frame")
}

func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// benchFrame is the baseline's pre-rendered copy of the LMP frame.
// Same size as the LMP frame of a low seq (the adapter titles a
// notification with its first line, shortened to 60 characters).
var benchFrame = []byte(`{"v":1,"seq":1,"ts":1764547200.123456,"type":"notification","task_id":"task_b","run_id":null,"event_id":"e_1","payload":{"category":"result","title":"` + benchPayload[:59] + `…","text":"` + benchPayload + `","source":"gateway","requires_attention":false}}`)

// benchEnv is a server for benchmarks.
func benchEnv(b *testing.B, mutate ...func(*server.Config)) (*server.Server, string, func()) {
	h := newFakeHermes()
	cfg := server.Config{Name: "bench", DataDir: b.TempDir(), Hermes: h,
		Profile: lmp.Profile{PingInterval: time.Hour, PongTimeout: time.Hour}}
	for _, m := range mutate {
		m(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	h.adapter = srv
	hs := httptest.NewServer(srv.Handler())
	return srv, hs.URL, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.Close()
	}
}

// pairRaw pairs a device on a raw connection and returns it after hello.ok.
func pairRaw(b *testing.B, base string, lastSeq *int64, id, cred string) (*websocket.Conn, string, string) {
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+lmp.PathWebSocket, nil)
	if err != nil {
		b.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	h := lmp.Hello{ProtocolVersion: 1, DeviceID: id, Credential: cred, LastSeq: lastSeq}
	if id == "" {
		var pr lmp.PairResponse
		resp, err := http.Post(base+lmp.PathPairNew, "application/json", nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := jsonDecode(resp, &pr); err != nil {
			b.Fatal(err)
		}
		h = lmp.Hello{ProtocolVersion: 1, Token: pr.Token}
	}
	f, _ := lmp.NewClientFrame(h)
	if err := ws.Write(ctx, websocket.MessageText, mustJSON(f)); err != nil {
		b.Fatal(err)
	}
	_, raw, err := ws.Read(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var ok struct{ Payload lmp.HelloOK }
	if err := jsonUnmarshal(raw, &ok); err != nil || ok.Payload.DeviceID == "" {
		b.Fatalf("hello.ok: %s", raw)
	}
	if ok.Payload.Credential != nil {
		cred = *ok.Payload.Credential
	}
	return ws, ok.Payload.DeviceID, cred
}

// BenchmarkFanout publishes one notification per iteration to every
// connected device. frames/s, cpu-ns/frame and allocs/frame count the
// frames all devices received together.
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("lmp/devices=%d", n), func(b *testing.B) {
			srv, base, stop := benchEnv(b, func(c *server.Config) { c.ReplayWindow = benchBatch })
			defer stop()
			t := newTally()
			for range n {
				ws, _, _ := pairRaw(b, base, nil, "", "")
				defer ws.CloseNow()
				go (&reader{ws: ws, t: t}).run()
			}
			fanout(b, n, t, func() { srv.Send(context.Background(), "task_b", benchPayload, nil) })
		})
		b.Run(fmt.Sprintf("baseline/devices=%d", n), func(b *testing.B) {
			bb := newBareBroadcaster(benchBatch)
			hs := httptest.NewServer(bb)
			defer hs.Close()
			defer bb.close()
			t := newTally()
			for range n {
				ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ws.CloseNow()
				go (&reader{ws: ws, t: t}).run()
			}
			bb.waitConns(n)
			fanout(b, n, t, func() { bb.broadcast(benchFrame) })
		})
	}
}

// fanout publishes in bursts of benchBatch events, each followed by a wait
// until every one of the n devices has all of them (the pacing keeps the
// slow-consumer policy out of the measure).
func fanout(b *testing.B, n int, t *tally, publish func()) {
	events := 0
	d := startDelivery()
	for b.Loop() {
		if events%benchBatch == 0 {
			if events > 0 {
				t.wait(b)
			}
			t.expect(int64(benchBatch * n))
		}
		publish()
		events++
	}
	// Complete the last burst so that every expected frame arrives.
	for ; events%benchBatch != 0; events++ {
		publish()
	}
	t.wait(b)
	d.report(b, events*n)
}

// BenchmarkIdleDevice reports the heap held per idle authenticated
// device, client and server side together (both run in this process), and
// the same for a bare WebSocket connection. The difference is the LMP
// server's own cost per device.
func BenchmarkIdleDevice(b *testing.B) {
	const n = 500
	b.Run("lmp", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, base, stop := benchEnv(b)
			before, g0 := heap(), runtime.NumGoroutine()
			conns := make([]*websocket.Conn, n)
			for j := range conns {
				conns[j], _, _ = pairRaw(b, base, nil, "", "")
			}
			after := heap()
			b.ReportMetric(float64(int64(after)-int64(before))/n, "B/device")
			b.ReportMetric(float64(runtime.NumGoroutine()-g0)/n, "goroutines/device")
			for _, c := range conns {
				c.CloseNow()
			}
			stop()
		}
	})
	b.Run("baseline", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			bb := newBareBroadcaster(server.DefaultSendQueue)
			hs := httptest.NewServer(bb)
			before, g0 := heap(), runtime.NumGoroutine()
			conns := make([]*websocket.Conn, n)
			for j := range conns {
				ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
				if err != nil {
					b.Fatal(err)
				}
				conns[j] = ws
			}
			bb.waitConns(n)
			after := heap()
			b.ReportMetric(float64(int64(after)-int64(before))/n, "B/device")
			b.ReportMetric(float64(runtime.NumGoroutine()-g0)/n, "goroutines/device")
			for _, c := range conns {
				c.CloseNow()
			}
			bb.close()
			hs.Close()
		}
	})
}

// BenchmarkReplay512 reconnects a device that missed 512 events and reads
// hello.ok and the whole replay; the baseline writes 513 pre-rendered
// frames after the first message. The figures per frame count the 512
// replayed frames and include the connection set-up.
func BenchmarkReplay512(b *testing.B) {
	const n = 512
	b.Run("lmp", func(b *testing.B) {
		srv, base, stop := benchEnv(b)
		defer stop()
		ws, id, cred := pairRaw(b, base, nil, "", "")
		ws.CloseNow()
		for range n {
			srv.Send(context.Background(), "task_b", benchPayload, nil)
		}
		zero := int64(0)
		replays := 0
		d := startDelivery()
		for b.Loop() {
			ws, _, _ := pairRaw(b, base, &zero, id, cred)
			readN(b, ws, n)
			ws.CloseNow()
			replays++
		}
		d.report(b, replays*n)
	})
	b.Run("baseline", func(b *testing.B) {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ws, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer ws.CloseNow()
			_, _, _ = ws.Read(context.Background()) // the "hello"
			for range n + 1 {
				if ws.Write(context.Background(), websocket.MessageText, benchFrame) != nil {
					return
				}
			}
			_, _, _ = ws.Read(context.Background())
		}))
		defer hs.Close()
		replays := 0
		d := startDelivery()
		for b.Loop() {
			ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
			if err != nil {
				b.Fatal(err)
			}
			_ = ws.Write(context.Background(), websocket.MessageText, []byte(`{}`))
			readN(b, ws, n+1)
			ws.CloseNow()
			replays++
		}
		d.report(b, replays*n)
	})
}

// readN reads n frames into one reused buffer.
func readN(b *testing.B, ws *websocket.Conn, n int) {
	buf := make([]byte, 4096)
	for range n {
		_, rd, err := ws.Reader(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.CopyBuffer(io.Discard, rd, buf); err != nil {
			b.Fatal(err)
		}
	}
}

func heap() uint64 {
	var m runtime.MemStats
	for i := 0; i < 2; i++ {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// bareBroadcaster is the baseline: accept, one writer goroutine and a
// buffered channel per connection, the same bytes to everyone.
type bareBroadcaster struct {
	queue int
	mu    sync.Mutex
	conns map[chan []byte]struct{}
	cond  *sync.Cond
}

func newBareBroadcaster(queue int) *bareBroadcaster {
	bb := &bareBroadcaster{queue: queue, conns: make(map[chan []byte]struct{})}
	bb.cond = sync.NewCond(&bb.mu)
	return bb
}

func (bb *bareBroadcaster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ch := make(chan []byte, bb.queue)
	bb.mu.Lock()
	bb.conns[ch] = struct{}{}
	bb.cond.Broadcast()
	bb.mu.Unlock()
	go func() {
		_, _, _ = ws.Read(context.Background())
		ws.CloseNow()
	}()
	for f := range ch {
		if ws.Write(context.Background(), websocket.MessageText, f) != nil {
			break
		}
	}
	ws.CloseNow()
}

func (bb *bareBroadcaster) waitConns(n int) {
	bb.mu.Lock()
	for len(bb.conns) < n {
		bb.cond.Wait()
	}
	bb.mu.Unlock()
}

func (bb *bareBroadcaster) broadcast(f []byte) {
	bb.mu.Lock()
	defer bb.mu.Unlock()
	for ch := range bb.conns {
		select {
		case ch <- f:
		default:
		}
	}
}

func (bb *bareBroadcaster) close() {
	bb.mu.Lock()
	defer bb.mu.Unlock()
	for ch := range bb.conns {
		close(ch)
		delete(bb.conns, ch)
	}
}
