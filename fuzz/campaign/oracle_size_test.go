package campaign

import (
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestFrameSizeOracle: a server frame over lmp.MaxFrameBytes is a
// frame-size finding; one at the limit is not.
func TestFrameSizeOracle(t *testing.T) {
	frame := func(n int) []byte {
		head := `{"v":1,"seq":1,"ts":1,"type":"notification","task_id":null,"run_id":null,"event_id":"e_1","payload":{"text":"`
		tail := `"}}`
		return []byte(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
	}
	for _, tc := range []struct {
		size int
		want bool
	}{{lmp.MaxFrameBytes, false}, {lmp.MaxFrameBytes + 1, true}} {
		o := &connOracle{secrets: newSecretSet(), authed: true}
		o.frame(frame(tc.size), false)
		got := false
		for _, f := range o.findings {
			got = got || f.Kind == KindFrameSize
		}
		if got != tc.want {
			t.Errorf("frame of %d bytes: frame-size finding %v, want %v (%v)", tc.size, got, tc.want, o.findings)
		}
	}
}
