package server

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

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
