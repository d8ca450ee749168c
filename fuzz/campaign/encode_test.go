package campaign

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// encodingJSON is what encode wrote before it was specialised: the
// generator's value through encoding/json, without HTML escaping.
func encodingJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"v":1,"type":"ping","payload":{}}`)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestEncodeMatchesEncodingJSON: encode writes exactly encoding/json's bytes
// for every kind of frame the generator builds, valid and mutated in place
// (so a seed's episodes are the bytes they were), and for the values at
// the edges: escapes, invalid UTF-8, U+2028, floats, NaN.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	g := newGen(3, schemasT(t))
	for i := range 3000 {
		f := g.validFrame()
		if i%5 == 0 {
			f = g.frame("hello", g.hello([]int{helloDevice, helloToken, helloWrong}[i%3]))
		}
		switch i % 6 {
		case 1:
			g.replaceLeaf(f, func(any) any { return g.boundary() })
		case 2:
			g.replaceLeaf(f, func(v any) any { return g.otherType(v) })
		case 3:
			g.deleteKey(f)
		case 4:
			g.addKey(f)
		}
		if got, want := encode(f), encodingJSON(f); !bytes.Equal(got, want) {
			t.Fatalf("encode differs from encoding/json:\n got  %s\n want %s", got, want)
		}
	}
	for _, v := range []any{
		"a\"b\\c\n\t\x01\b\f\r\x7f<>&", "é\xe9x\xf0\x9f\x98", "\u2028\u2029", "\xff\xfe", "ä", map[string]any{"k\"ey": 1, "<": []any{nil, true}},
		1e308, -1e308, 0.5, math.Copysign(0, -1), 1e21, 1e-7, 123456789.0, math.NaN(), strings.Repeat("9", 400),
		int64(math.MinInt64), map[string]string{"b": "1", "a": "2"}, []string{"x"}, json.Number("12"),
	} {
		if got, want := encode(v), encodingJSON(v); !bytes.Equal(got, want) {
			t.Errorf("encode(%#v) = %s, encoding/json writes %s", v, got, want)
		}
	}
}

// TestMayBePing: every frame whose type decodes as ping is counted (a
// missing sentinel would leave an episode waiting for a pong it cannot
// tell apart), and frames that cannot be one mostly are not.
func TestMayBePing(t *testing.T) {
	for _, tc := range []struct {
		frame string
		want  bool
	}{
		{`{"v":1,"type":"ping","payload":{}}`, true},
		{`{"v":1,"TYPE":"ping","payload":{}}`, true},
		{`{"v":1,"type":"p\u0069ng","payload":{}}`, true},
		{`{"v":1,"type":"PiNG","payload":{}}`, true},
		{`{"v":1,"type":"pong","payload":{}}`, false},
		{`{"v":1,"type":"PONG","payload":{"text":"` + strings.Repeat("é", 1000) + `"}}`, false},
		{`{"v":1,"type":"session.send","payload":{"text":"` + strings.Repeat("x", 100000) + `"}}`, false},
	} {
		if got := mayBePing([]byte(tc.frame)); got != tc.want {
			t.Errorf("mayBePing(%.60s) = %v, want %v", tc.frame, got, tc.want)
		}
		if frameTypeOf([]byte(tc.frame)) == "ping" && !mayBePing([]byte(tc.frame)) {
			t.Errorf("%.60s decodes as a ping but is not counted", tc.frame)
		}
	}
}

// TestFillersEncodeAsTheirStrings: a filler is written as encoding/json
// writes the value it stands for, at the lengths the mutations use: the
// repeated string of a huge value or a pad, the array of zeros of a padded
// hello, and the nesting of a deep frame.
func TestFillersEncodeAsTheirStrings(t *testing.T) {
	for _, n := range []int{0, 1, 2, 1024, lmp.MaxIDLength + 1, lmp.MaxTextLength + 1, maxHugeUnits} {
		for u, unit := range hugeUnits {
			if got, want := encode(hugeValue(u, n)), encodingJSON(strings.Repeat(unit, n)); !bytes.Equal(got, want) {
				t.Fatalf("huge value of %d × %q: %.80s…, encoding/json writes %.80s…", n, unit, got, want)
			}
		}
	}
	for _, n := range []int{0, 1, lmp.MaxFrameBytes + 1, maxPad} {
		if got, want := encode(padValue(n)), encodingJSON(strings.Repeat("x", n)); !bytes.Equal(got, want) {
			t.Fatalf("pad of %d: %.80s…, encoding/json writes %.80s…", n, got, want)
		}
	}
	for _, n := range []int{0, 1, 2, 32768, maxZeros} {
		if got, want := encode(zeroArray(n)), encodingJSON(make([]int, n)); !bytes.Equal(got, want) {
			t.Fatalf("%d zeros: %.80s…, encoding/json writes %.80s…", n, got, want)
		}
	}
	for i, n := range nestings {
		for _, depth := range []int{0, 1, 50, maxDepth} {
			want := strings.Repeat(n.open, depth) + "1" + strings.Repeat(n.close, depth)
			if got := appendNest(nil, i, depth); string(got) != want {
				t.Fatalf("nesting %q × %d: %.80s…, want %.80s…", n.open, depth, got, want)
			}
		}
	}
}
