package mockhermes

import (
	"encoding/json"
	"math"
	"unicode/utf8"
)

// shapeJSON returns v as decoded JSON would hold it: numbers as float64,
// slices as []any, maps as map[string]any. A value already in that form is
// returned as it is, not copied: a turn's pre_llm_call carries the chat's
// whole conversation_history, and a deep copy per turn (what a JSON round
// trip is) made a long chat of long messages cost memory quadratic in its
// length. Only the parts that change are rebuilt; a type the walk does
// not know goes through encoding/json.
func shapeJSON(v any) any {
	out, _ := shaped(v)
	return out
}

// shaped is shapeJSON, and whether the value had to change.
func shaped(v any) (any, bool) {
	switch t := v.(type) {
	case nil, string, bool, float64:
		return v, false
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case int32:
		return float64(t), true
	case float32:
		return float64(t), true
	case uint64:
		return float64(t), true
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return f, true
		}
		return v, false
	case map[string]any:
		var out map[string]any // nil until a value changes
		for k, x := range t {
			y, changed := shaped(x)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(t))
				for k2, x2 := range t {
					out[k2] = x2
				}
			}
			out[k] = y
		}
		if out == nil {
			return t, false
		}
		return out, true
	case []any:
		var out []any
		for i, x := range t {
			y, changed := shaped(x)
			if !changed {
				continue
			}
			if out == nil {
				out = append([]any(nil), t...)
			}
			out[i] = y
		}
		if out == nil {
			return t, false
		}
		return out, true
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return v, false
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return v, false
	}
	return out, true
}

// approxSize estimates the bytes v holds: its strings and a word or two
// per value. The recordings are bounded with it.
func approxSize(v any) int {
	switch t := v.(type) {
	case string:
		return 16 + len(t)
	case map[string]any:
		n := 48
		for k, x := range t {
			n += 16 + len(k) + approxSize(x)
		}
		return n
	case []any:
		n := 24
		for _, x := range t {
			n += approxSize(x)
		}
		return n
	}
	return 16
}

// jsonBound is a bound on the length of json.Marshal(v), or math.MaxInt
// where it gives none. It gives one only for values whose JSON decodes to
// what shapeJSON makes of them: nil, bools, numbers that encode, strings
// and keys of valid UTF-8 (encoding/json would replace a bad byte), and
// maps and slices of those. A string's byte may take six bytes escaped
// (\u00XX).
func jsonBound(v any) int {
	const number = 32 // the longest float64 or int64 in JSON is 24 bytes
	switch t := v.(type) {
	case nil, bool:
		return 5
	case string:
		if !utf8.ValidString(t) {
			return math.MaxInt
		}
		return 2 + 6*len(t)
	case int, int64, int32, uint64:
		return number
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return math.MaxInt
		}
		return number
	case map[string]any:
		n := 2
		for k, x := range t {
			b := jsonBound(x)
			if b == math.MaxInt || !utf8.ValidString(k) {
				return math.MaxInt
			}
			n += 2 + 6*len(k) + 1 + b + 1
		}
		return n
	case []any:
		n := 2
		for _, x := range t {
			b := jsonBound(x)
			if b == math.MaxInt {
				return b
			}
			n += b + 1
		}
		return n
	}
	return math.MaxInt
}
