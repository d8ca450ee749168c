package dashboard

import (
	"testing"

	"github.com/loomi-lmp/lmpkit/server"
)

// BenchmarkObserve is the cost the dashboard adds to each frame a
// connection writes (a run.delta), with a few paired devices' secrets to
// redact; BenchmarkObserveNil is the server without a dashboard.
func BenchmarkObserve(b *testing.B) {
	l := newFrameLog()
	for i := 0; i < 8; i++ {
		l.remember("credential-of-device-number-" + string(rune('a'+i)) + "-0123456789abcdef")
	}
	l.bind(1, "dev_a")
	f := server.ObservedFrame{Conn: 1, Sent: true, Data: frame("run.delta", 42, `{"run_id":"run_1","text":"Hello, world","kind":"text","iteration":1}`)}
	b.ReportAllocs()
	for b.Loop() {
		l.observe(f)
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
