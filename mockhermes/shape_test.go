package mockhermes

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestJSONBoundHoldsForEveryValueItBounds: wherever jsonBound gives a
// bound, it is at least the length of the value's JSON, and shapeJSON
// gives what that JSON decodes to. A stream hook's kwargs then reach the
// adapter as the JSON round trip they skip would have made them.
func TestJSONBoundHoldsForEveryValueItBounds(t *testing.T) {
	fixed := []any{
		nil, true, false, 0, -1, int64(math.MinInt64), uint64(math.MaxUint64), int32(7),
		0.0, math.Copysign(0, -1), 1e-310, -1.7976931348623157e308, 1.0 / 3,
		"", "plain", "<tag>&amp;", "\u2028\u2029", "\x00\x01\x1f\"\\", "é漢🙂",
		map[string]any{}, []any{}, map[string]any{"<k>": []any{1, "x", nil}},
		map[string]any{"delta": "Hello, wor", "kind": "text", "telemetry_schema_version": 1},
	}
	check := func(v any) {
		t.Helper()
		b := jsonBound(v)
		if b == math.MaxInt {
			return
		}
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("jsonBound(%#v) = %d, but it does not encode: %v", v, b, err)
		}
		if len(raw) > b {
			t.Fatalf("jsonBound(%#v) = %d, but its JSON is %d bytes: %s", v, b, len(raw), raw)
		}
		var want any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if got := shapeJSON(v); !reflect.DeepEqual(got, want) {
			t.Fatalf("shapeJSON(%#v) = %#v, but its JSON decodes to %#v", v, got, want)
		}
	}
	for _, v := range fixed {
		check(v)
	}
	r := rand.New(rand.NewPCG(22, 25))
	for range 5000 {
		check(randomValue(r, 0))
	}

	// What it must not bound: the round trip changes these.
	for _, v := range []any{"bad \xff byte", map[string]any{"k\xfe": 1}, math.NaN(), math.Inf(-1), []string{"typed"}, struct{ A int }{1}} {
		if b := jsonBound(v); b != math.MaxInt {
			t.Errorf("jsonBound(%#v) = %d, want no bound", v, b)
		}
	}
}

// randomValue builds a value of the kinds jsonBound knows, with strings of
// bytes that need escaping.
func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(8)
	if depth > 3 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return r.Int64() - r.Int64()
	case 3:
		return math.Float64frombits(r.Uint64())
	case 4:
		return randomString(r)
	case 5, 6:
		m := map[string]any{}
		for range r.IntN(5) {
			m[randomString(r)] = randomValue(r, depth+1)
		}
		return m
	default:
		s := make([]any, r.IntN(5))
		for i := range s {
			s[i] = randomValue(r, depth+1)
		}
		return s
	}
}

func randomString(r *rand.Rand) string {
	pieces := []string{"a", "Z", " ", "<", ">", "&", "\"", "\\", "\n", "\x00", "\x1f", "é", "\u2028", "🙂", "\xff"}
	b := []byte{}
	for range r.IntN(12) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return string(b)
}
