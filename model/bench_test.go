package model_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/cputime"
	"github.com/loomi-lmp/lmpkit/model"
)

// The scripted model against a baseline from the same run: a bare net/http
// handler that writes the same number of pre-rendered SSE events of the
// same size, flushing each, with no request parsing, routing or JSON
// encoding. docs/performance.md has the figures and the command:
//
//	go test -run '^$' -bench Stream -count 5 ./model/

// benchBody is the request both servers get: the reply scenario, one
// character a delta (Options.Chunk 1), so one request streams about two
// hundred chunks.
const benchBody = `{"model":"lmp-scripted","stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"terminal"}}],"messages":[{"role":"system","content":"You are Hermes."},{"role":"user","content":"lmp-model:reply"}]}`

// recordEvents returns the model's events for benchBody, as the bare
// handler replays them.
func recordEvents(b *testing.B, url string) [][]byte {
	b.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(benchBody))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var events [][]byte
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Bytes(); len(line) > 0 {
			events = append(events, append(append([]byte(nil), line...), '\n', '\n'))
		}
	}
	return events
}

// bareSSE writes events, flushing each: the baseline.
func bareSSE(events [][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		for _, e := range events {
			_, _ = w.Write(e)
			fl.Flush()
		}
	})
}

type benchServers struct {
	model, bare *httptest.Server
	events      int
}

func startBench(b *testing.B) benchServers {
	b.Helper()
	m := httptest.NewServer(model.New(model.Options{Chunk: 1}))
	b.Cleanup(m.Close)
	events := recordEvents(b, m.URL)
	bare := httptest.NewServer(bareSSE(events))
	b.Cleanup(bare.Close)
	return benchServers{model: m, bare: bare, events: len(events)}
}

// stream posts benchBody and reads the whole stream; it returns the time
// to the first byte of the body and the number of events read.
func stream(b *testing.B, url string, buf []byte) (time.Duration, int) {
	start := time.Now()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(benchBody))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := resp.Body.Read(buf)
	ttfb := time.Since(start)
	events := bytes.Count(buf[:n], []byte("\n\n"))
	for err == nil {
		n, err = resp.Body.Read(buf)
		events += bytes.Count(buf[:n], []byte("\n\n"))
	}
	if err != io.EOF {
		b.Fatal(err)
	}
	return ttfb, events
}

func benchStreams(b *testing.B, url string, want int) {
	buf := make([]byte, 64<<10)
	var ttfb time.Duration
	events := 0
	cpu := cputime.Process()
	for b.Loop() {
		t, n := stream(b, url, buf)
		ttfb += t
		events += n
	}
	cpu = cputime.Process() - cpu
	if events != want*b.N {
		b.Fatalf("%d events in %d streams, want %d each", events, b.N, want)
	}
	b.ReportMetric(float64(ttfb.Microseconds())/float64(b.N), "ttfb-µs")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "chunks/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/chunk")
}

// BenchmarkStream streams the same events from both servers: ttfb-µs is
// the time from the request to the first byte of the body (the role
// delta), chunks/s the events of whole streams per second of wall time,
// cpu-ns/chunk the process's CPU time per event.
func BenchmarkStream(b *testing.B) {
	s := startBench(b)
	b.Run("model", func(b *testing.B) { benchStreams(b, s.model.URL, s.events) })
	b.Run("bare", func(b *testing.B) { benchStreams(b, s.bare.URL, s.events) })
}
