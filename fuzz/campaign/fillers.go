package campaign

import (
	"strings"
	"sync"

	"github.com/loomi-lmp/lmpkit/internal/jsonscan"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// The long values of huge, oversized and deeply nested frames are slices of
// strings built once per process: building a 128 KiB or 1 MiB value for
// every such frame, and escaping it again as it was encoded, was most of
// the campaign's generation cost. The frames' bytes are the same: a
// filler's encoding is what encoding/json writes for the string it stands
// for (TestEncodeMatchesEncodingJSON).

// jsonText is a JSON string value given by its encoding, without the
// quotes: appendJSON copies it instead of escaping it again.
type jsonText string

// MarshalJSON implements json.Marshaler, for encoding/json's view of a
// generated frame.
func (t jsonText) MarshalJSON() ([]byte, error) { return []byte(`"` + string(t) + `"`), nil }

// zeroArray is a JSON array of that many zeros.
type zeroArray int

// MarshalJSON implements json.Marshaler.
func (z zeroArray) MarshalJSON() ([]byte, error) { return appendZeros(nil, int(z)), nil }

func appendZeros(b []byte, n int) []byte {
	if n <= 0 {
		return append(b, "[]"...)
	}
	b = append(b, '[')
	b = append(b, longFillers().zeros[:2*n-1]...)
	return append(b, ']')
}

// Longest fillers: a huge value is up to 1<<17 repetitions of its unit; an
// oversized frame's pad up to lmp.MaxFrameBytes+1024 bytes; a pre-auth
// hello's pad up to lmp.MaxFrameBytes/2 zeros; a nesting 20000 levels.
const (
	maxHugeUnits = 1 << 17
	maxPad       = lmp.MaxFrameBytes + 1024
	maxZeros     = lmp.MaxFrameBytes / 2
	maxDepth     = 20000
)

// hugeUnits are the units a huge value repeats: ASCII, two-byte UTF-8, a
// character encoding/json escapes (U+2028, six bytes escaped), a digit.
var hugeUnits = []string{"A", "é", "\u2028", "0"}

// fillers holds the encodings of the longest fillers; shorter ones are
// their prefixes.
type fillers struct {
	huge   []string // per hugeUnits entry: its encoding, maxHugeUnits times
	pad    string   // "x", maxPad times
	zeros  string   // "0,0,…,0", maxZeros zeros
	opens  [2]string
	closes [2]string
}

var longFillers = sync.OnceValue(func() *fillers {
	f := &fillers{
		pad:   strings.Repeat("x", maxPad),
		zeros: strings.Repeat("0,", maxZeros),
	}
	for _, u := range hugeUnits {
		enc := jsonscan.AppendString(nil, u, false)
		f.huge = append(f.huge, strings.Repeat(string(enc[1:len(enc)-1]), maxHugeUnits))
	}
	for i, n := range nestings {
		f.opens[i] = strings.Repeat(n.open, maxDepth)
		f.closes[i] = strings.Repeat(n.close, maxDepth)
	}
	return f
})

// nestings are the two shapes of a deeply nested value.
var nestings = [2]struct{ open, close string }{{"[", "]"}, {`{"a":`, "}"}}

// hugeValue is hugeUnits[unit] repeated n times, as a JSON value.
func hugeValue(unit, n int) jsonText {
	s := longFillers().huge[unit]
	return jsonText(s[:len(s)/maxHugeUnits*n])
}

// padValue is "x" repeated n times, as a JSON value.
func padValue(n int) jsonText { return jsonText(longFillers().pad[:n]) }

// appendNest appends depth opens of nesting i, a 1, and depth closes.
func appendNest(b []byte, i, depth int) []byte {
	f := longFillers()
	b = append(b, f.opens[i][:depth*len(nestings[i].open)]...)
	b = append(b, '1')
	return append(b, f.closes[i][:depth*len(nestings[i].close)]...)
}
