package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"strconv"
	"testing"

	"github.com/loomi-lmp/lmpkit/server"
)

// benchSecret returns a secret as the server mints them: 32 random bytes,
// URL-safe base64 (43 characters).
func benchSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// BenchmarkObserve is the cost the dashboard adds to each frame a
// connection writes (a run.delta of a bound device), on the server's
// goroutine: with 0, 1 and 500 remembered secrets, without a page open and
// with one live page that reads every frame. BenchmarkObserveNil is the
// server without a dashboard.
func BenchmarkObserve(b *testing.B) {
	for _, page := range []bool{false, true} {
		for _, secrets := range []int{0, 1, 500} {
			name := "secrets=" + strconv.Itoa(secrets) + "/page=" + strconv.FormatBool(page)
			b.Run(name, func(b *testing.B) {
				l := newFrameLog()
				for range secrets {
					l.remember(benchSecret())
				}
				l.bind(1, "dev_a")
				if page {
					_, s := l.subscribe()
					done := make(chan struct{})
					go func() {
						defer close(done)
						for range s.frames {
						}
					}()
					b.Cleanup(func() { l.unsubscribe(s); close(s.frames); <-done })
				}
				f := server.ObservedFrame{Conn: 1, Sent: true, Data: frame("run.delta", 42, `{"run_id":"run_1","text":"Hello, world","kind":"text","iteration":1}`)}
				b.ReportAllocs()
				for b.Loop() {
					l.observe(f)
				}
			})
		}
	}
}

func BenchmarkObserveNil(b *testing.B) {
	var o server.FrameObserver
	f := server.ObservedFrame{Conn: 1, Sent: true}
	b.ReportAllocs()
	for b.Loop() {
		if o != nil {
			o(f)
		}
	}
}

// BenchmarkRender is what a page pays to read one frame (the run.delta of
// BenchmarkObserve) with 500 remembered secrets: the redaction the
// observer no longer does.
func BenchmarkRender(b *testing.B) {
	l := newFrameLog()
	for range 500 {
		l.remember(benchSecret())
	}
	l.observe(server.ObservedFrame{Conn: 1, Sent: true, Data: frame("run.delta", 42, `{"run_id":"run_1","text":"Hello, world","kind":"text","iteration":1}`)})
	e := l.ring[0]
	b.ReportAllocs()
	for b.Loop() {
		l.render(e)
	}
}

// BenchmarkRemember is what learning one new secret costs the connection
// that observes it (every hello.ok brings a credential), with the set
// full: keepSecrets remembered, the oldest forgotten.
func BenchmarkRemember(b *testing.B) {
	l := newFrameLog()
	for range keepSecrets {
		l.remember(benchSecret())
	}
	fresh := make([]string, 4096)
	for i := range fresh {
		fresh[i] = benchSecret()
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l.remember(fresh[i%len(fresh)])
		i++
	}
}
