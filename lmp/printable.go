package lmp

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable returns s with every character that a terminal or a page
// would act on instead of showing written as an escape, so that a string a
// phone supplied can be printed as it is: the C0 and C1 controls (ESC, CR,
// BEL, NUL, CSI …) and DEL as \xNN or \u00NN, the Unicode bidirectional
// controls (which reorder what follows them) as \uNNNN, and bytes that are
// not UTF-8 as \xNN. A backslash is doubled, so an escape in the output
// always means one was made. Without such characters s is returned as it is.
func Printable(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// HasControl reports whether s holds a character Printable escapes, other
// than the backslash: a control character, a bidirectional control or a
// byte that is not UTF-8.
func HasControl(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r < 0x20 || r == 0x7f || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

func needsEscape(s string) bool {
	return strings.IndexByte(s, '\\') >= 0 || HasControl(s)
}

// unsafeRune reports the C1 controls and the bidirectional controls
// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
