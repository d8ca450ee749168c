package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// kwargs reads hook keyword arguments leniently: they arrive as decoded
// JSON would, so numbers may be float64, int or json.Number. A wrong type is
// reported so that the hook can be dropped with a log line, never a panic.
type kwargs map[string]any

type kwargError struct{ key, want string }

func (e kwargError) Error() string { return fmt.Sprintf("kwarg %s: want %s", e.key, e.want) }

// str returns a string argument; a missing or null one is "".
func (k kwargs) str(key string) (string, error) {
	switch v := k[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", kwargError{key, "string"}
	}
}

// strs reads several string arguments, in order.
func (k kwargs) strs(keys ...string) ([]string, error) {
	out := make([]string, len(keys))
	for i, key := range keys {
		v, err := k.str(key)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// num returns a numeric argument; a missing or null one is 0.
func (k kwargs) num(key string) (float64, error) {
	switch v := k[key].(type) {
	case nil:
		return 0, nil
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return 0, kwargError{key, "number"}
		}
		return f, nil
	default:
		return 0, kwargError{key, "number"}
	}
}

// boolean returns a boolean argument; a missing or null one is false.
func (k kwargs) boolean(key string) (bool, error) {
	switch v := k[key].(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	default:
		return false, kwargError{key, "bool"}
	}
}

// preview renders a tool's arguments as a short one-line literal (E-4).
func preview(v any) string {
	// Enforces E-4: tool arguments, the one free-form Hermes value put in a payload, become a one-line string.
	const max = 120
	var s string
	switch a := v.(type) {
	case nil:
		return ""
	case string:
		s = a
	default:
		raw, err := json.Marshal(a)
		if err != nil {
			return ""
		}
		s = string(raw)
	}
	return truncate(strings.Join(strings.Fields(s), " "), max)
}

// truncate cuts s to at most n characters, marking a cut with "…". It
// walks s instead of converting it to runes: it runs on every
// notification's text (its title), which may be long.
func truncate(s string, n int) string {
	if !utf8.ValidString(s) {
		if r := []rune(s); len(r) > n { // replaces what is not UTF-8
			return string(r[:n-1]) + "…"
		}
		return s
	}
	cut, count := 0, 0
	for i := range s {
		if count == n-1 {
			cut = i
		}
		if count++; count > n {
			return s[:cut] + "…"
		}
	}
	return s
}
