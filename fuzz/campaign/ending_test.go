package campaign

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// TestEndingFrameGoesLast: of the frames that end a connection (binary,
// invalid UTF-8, over the read limit) the first goes behind every other
// frame and later ones are dropped; the others keep their order.
func TestEndingFrameGoesLast(t *testing.T) {
	hello := Step{Op: OpText, Data: []byte(`{"v":1,"type":"hello"}`)}
	a := Step{Op: OpText, Data: []byte(`{"v":1,"type":"ping","payload":{}}`)}
	b := Step{Op: OpText, Data: []byte(`{"v":1,"type":"task.list"`)} // broken JSON: answered, not fatal
	bin := Step{Op: OpBinary, Data: []byte{1, 2}}
	utf := Step{Op: OpText, Data: []byte("{\"v\":1,\"type\":\"\xff\"}")}
	big := Step{Op: OpText, Data: []byte(strings.Repeat("x", lmp.MaxFrameBytes+1))}
	wait := Step{Op: OpWait}
	for _, c := range []struct {
		name     string
		in, want []Step
	}{
		{"none", []Step{hello, a, b}, []Step{hello, a, b}},
		{"binary first", []Step{hello, bin, a, utf, b}, []Step{hello, a, b, bin}},
		{"utf8 then oversized", []Step{hello, a, utf, big, b}, []Step{hello, a, b, utf}},
		{"oversized", []Step{hello, big, wait, a}, []Step{hello, wait, a, big}},
	} {
		if got := endingLast(append([]Step(nil), c.in...)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %d steps %v, want %v", c.name, len(got), ops(got), ops(c.want))
		}
	}
}

func ops(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = string(s.Op)
		if len(s.Data) > 24 {
			out[i] += ":" + string(s.Data[:24])
		} else {
			out[i] += ":" + string(s.Data)
		}
	}
	return out
}
