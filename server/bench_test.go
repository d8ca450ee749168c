package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

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

// reader counts the text frames a raw connection receives.
type reader struct {
	ws *websocket.Conn
	n  atomic.Int64
}

func (r *reader) run() {
	for {
		if _, _, err := r.ws.Read(context.Background()); err != nil {
			return
		}
		r.n.Add(1)
	}
}

func waitAll(b *testing.B, rs []*reader, want int64) {
	deadline := time.Now().Add(2 * time.Minute)
	for _, r := range rs {
		for r.n.Load() < want {
			if time.Now().After(deadline) {
				b.Fatalf("a reader got %d of %d frames", r.n.Load(), want)
			}
			runtime.Gosched()
		}
	}
}

// benchEnv is a server for benchmarks.
func benchEnv(b *testing.B, mutate ...func(*server.Config)) (*server.Server, string, func()) {
	h := newFakeHermes()
	cfg := server.Config{Name: "bench", DataDir: b.TempDir(), Hermes: h,
		PingInterval: time.Hour, PongTimeout: time.Hour}
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

func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("lmp/devices=%d", n), func(b *testing.B) {
			srv, base, stop := benchEnv(b, func(c *server.Config) { c.ReplayWindow = benchBatch })
			defer stop()
			rs := make([]*reader, n)
			for i := range rs {
				ws, _, _ := pairRaw(b, base, nil, "", "")
				defer ws.CloseNow()
				rs[i] = &reader{ws: ws}
				go rs[i].run()
			}
			b.ResetTimer()
			for i := 1; i <= b.N; i++ {
				srv.Send(context.Background(), "task_b", benchPayload, nil)
				if i%benchBatch == 0 {
					waitAll(b, rs, int64(i)) // pace bursts to the queue depth
				}
			}
			waitAll(b, rs, int64(b.N))
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "frames/s")
		})
		b.Run(fmt.Sprintf("baseline/devices=%d", n), func(b *testing.B) {
			bb := newBareBroadcaster(benchBatch)
			hs := httptest.NewServer(bb)
			defer hs.Close()
			rs := make([]*reader, n)
			for i := range rs {
				ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ws.CloseNow()
				rs[i] = &reader{ws: ws}
				go rs[i].run()
			}
			bb.waitConns(n)
			frame := []byte(`{"v":1,"seq":1,"ts":1.5,"type":"notification","task_id":"task_b","run_id":null,"event_id":"e_1","payload":{"text":"` + benchPayload + `"}}`)
			b.ResetTimer()
			for i := 1; i <= b.N; i++ {
				bb.broadcast(frame)
				if i%benchBatch == 0 {
					waitAll(b, rs, int64(i))
				}
			}
			waitAll(b, rs, int64(b.N))
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "frames/s")
			bb.close()
		})
	}
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
// hello.ok and the whole replay.
func BenchmarkReplay512(b *testing.B) {
	const n = 512
	b.Run("lmp", func(b *testing.B) {
		srv, base, stop := benchEnv(b)
		defer stop()
		ws, id, cred := pairRaw(b, base, nil, "", "")
		ws.CloseNow()
		for i := 0; i < n; i++ {
			srv.Send(context.Background(), "task_b", benchPayload, nil)
		}
		zero := int64(0)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ws, _, _ := pairRaw(b, base, &zero, id, cred)
			for j := 0; j < n; j++ {
				if _, _, err := ws.Read(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			ws.CloseNow()
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "frames/s")
	})
	b.Run("baseline", func(b *testing.B) {
		frame := []byte(`{"v":1,"seq":1,"ts":1.5,"type":"notification","task_id":"task_b","run_id":null,"event_id":"e_1","payload":{"text":"` + benchPayload + `"}}`)
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ws, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer ws.CloseNow()
			_, _, _ = ws.Read(context.Background()) // the "hello"
			_ = ws.Write(context.Background(), websocket.MessageText, frame)
			for i := 0; i < n; i++ {
				if ws.Write(context.Background(), websocket.MessageText, frame) != nil {
					return
				}
			}
			_, _, _ = ws.Read(context.Background())
		}))
		defer hs.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
			if err != nil {
				b.Fatal(err)
			}
			_ = ws.Write(context.Background(), websocket.MessageText, []byte(`{}`))
			for j := 0; j < n+1; j++ {
				if _, _, err := ws.Read(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			ws.CloseNow()
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "frames/s")
	})
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
