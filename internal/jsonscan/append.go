package jsonscan

import "unicode/utf8"

// AppendString appends s to dst as a JSON string, as encoding/json writes
// it: ", \ and the control bytes escaped (\b, \f, \n, \r and \t short, the
// others as \u00xx), U+2028 and U+2029 escaped, and each byte of invalid
// UTF-8 as \ufffd. With escapeHTML, <, > and & are written as \u003c,
// \u003e and \u0026, as json.Marshal writes them; without, as they are, as
// an Encoder with SetEscapeHTML(false) writes them.
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	escaped := &escapedPlain
	if escapeHTML {
		escaped = &escapedHTML
	}
	dst = append(dst, '"')
	start := 0 // the first byte not yet appended
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !escaped[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// escapedPlain and escapedHTML mark the ASCII bytes encoding/json escapes
// in a string, without and with HTML escaping.
var (
	escapedPlain = func() (v [utf8.RuneSelf]bool) {
		for c := range 0x20 {
			v[c] = true
		}
		v['"'], v['\\'] = true, true
		return v
	}()
	escapedHTML = func() (v [utf8.RuneSelf]bool) {
		for c := range 0x20 {
			v[c] = true
		}
		v['"'], v['\\'], v['<'], v['>'], v['&'] = true, true, true, true, true
		return v
	}()
)
