// Package jsonscan holds the byte-level scans of JSON text that the fast
// paths share: the envelope reader of lmp.Unmarshal and the dashboard's
// frame index.
package jsonscan

import "bytes"

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
