// Package jsonscan holds the byte-level scans of JSON text that the fast
// paths share: the envelope reader of lmp.Unmarshal and the dashboard's
// frame index.
package jsonscan

import (
	"bytes"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// StringEnd returns the index of the quote that closes the JSON string
// whose contents begin at data[start] (the byte after its opening quote),
// -1 when there is none, and whether the string holds an escape. It jumps
// from quote to quote and looks at the bytes in between only when a
// backslash may escape the quote, so each byte is looked at once at most:
// a value of a hundred thousand escapes costs what its length does.
func StringEnd(data []byte, start int) (end int, escaped bool) {
	for i := start; i < len(data); {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return -1, escaped
		}
		q += i
		b := bytes.IndexByte(data[i:q], '\\')
		if b < 0 {
			return q, escaped
		}
		escaped = true
		j := i + b
		for j < q {
			if data[j] == '\\' {
				j += 2 // the backslash and the byte it escapes
			} else {
				j++
			}
		}
		if j == q {
			return q, escaped // the quote closes the string
		}
		i = j // the quote was escaped: look on after it
	}
	return -1, escaped
}

// Unquote returns the value of the JSON string whose contents (between the
// quotes) are s, as encoding/json decodes it: escapes resolved, a \u
// escape of a lone surrogate and each byte of invalid UTF-8 replaced by
// U+FFFD. ok is false where encoding/json refuses the string: a bad
// escape, an unescaped quote or control character. s itself is returned
// when it holds nothing to rewrite.
func Unquote(s []byte) (out []byte, ok bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' || c == '"' || c < ' ' || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	if i == len(s) {
		return s, true
	}
	out = make([]byte, i, len(s)+2*utf8.UTFMax)
	copy(out, s[:i])
	for i < len(s) {
		switch c := s[i]; {
		case c == '\\':
			if i+1 >= len(s) {
				return nil, false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(s[i:])
				if r < 0 {
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if pair := utf16.DecodeRune(r, hex4(s[i:])); pair != unicode.ReplacementChar {
						r = pair
						i += 6
					} else {
						r = unicode.ReplacementChar
					}
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return nil, false
			}
			i += 2
		case c == '"' || c < ' ':
			return nil, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				out = utf8.AppendRune(out, unicode.ReplacementChar)
			} else {
				out = append(out, s[i:i+n]...)
			}
			i += n
		}
	}
	return out, true
}

// hex4 reads the \uXXXX escape at the start of s, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
