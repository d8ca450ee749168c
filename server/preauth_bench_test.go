package server_test

import (
	"bytes"
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// unauthFrame is a first frame of just under 1 MiB from a connection that
// has not authenticated: a hello whose payload carries a long array under
// a key that is not of the LMP form (the costliest shape to decode).
func unauthFrame() []byte {
	var b bytes.Buffer
	b.WriteString(`{"v":1,"type":"hello","payload":{"protocol_version":1,"token":"t","Pad":[0`)
	for b.Len() < lmp.MaxFrameBytes-16 {
		b.WriteString(",0")
	}
	b.WriteString("]}}")
	return b.Bytes()
}

// BenchmarkUnauthenticatedFrame sends, on 16 connections at once, one
// first frame of about 1 MiB each, and reports what the server allocates
// and how far the heap grows per byte of such a frame: alloc-B/frame-B
// (the process's bytes allocated ÷ the frames' bytes) and
// peak-heap-B/frame-B (the highest live heap above the start, sampled
// every millisecond, ÷ the frames' bytes). The clients write from one
// shared buffer and read into nothing, so the figures are the server's.
func BenchmarkUnauthenticatedFrame(b *testing.B) {
	const conns = 16
	_, base, stop := benchEnv(b)
	defer stop()
	url := "ws" + base[len("http"):] + lmp.PathWebSocket
	frame := unauthFrame()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	live := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	var allocated, peak float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		start := live()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		var top atomic.Uint64
		done := make(chan struct{})
		go func() { // the peak, sampled
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			for {
				if h := live(); h > top.Load() {
					top.Store(h)
				}
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		}()
		b.StartTimer()
		var wg sync.WaitGroup
		for range conns {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				ws, _, err := websocket.Dial(ctx, url, nil)
				if err != nil {
					b.Error(err)
					return
				}
				defer ws.CloseNow()
				if err := ws.Write(ctx, websocket.MessageText, frame); err != nil {
					b.Error(err)
					return
				}
				for { // until the server closes: its answer is an error and a close
					if _, _, err := ws.Read(ctx); err != nil {
						return
					}
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		close(done)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		n := float64(conns * len(frame))
		allocated += float64(after.TotalAlloc-before.TotalAlloc) / n
		if top.Load() > start {
			peak += float64(top.Load()-start) / n
		}
		b.StartTimer()
	}
	b.ReportMetric(allocated/float64(b.N), "alloc-B/frame-B")
	b.ReportMetric(peak/float64(b.N), "peak-heap-B/frame-B")
}
