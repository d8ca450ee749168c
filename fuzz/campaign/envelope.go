package campaign

import (
	"encoding/json"
	"strconv"

	"github.com/loomi-lmp/lmpkit/internal/jsonscan"
)

// decodeEnvelope reads the envelope fields of a server frame into f, as
// json.Unmarshal(raw, &f) does. When parsed says raw is known to be
// well-formed JSON (the schema validator parsed and accepted it), the
// fields are read by one scan of the frame's top level instead: a received
// frame was parsed twice, once by the validator and once by encoding/json.
// Whatever the scan does not read exactly as encoding/json would (escapes
// or non-ASCII bytes in a key or a string field, a seq that is not a plain
// integer, deep values) goes to json.Unmarshal.
func decodeEnvelope(raw []byte, parsed bool, f *wireFrame) error {
	if parsed && scanEnvelope(raw, f) {
		return nil
	}
	*f = wireFrame{}
	return json.Unmarshal(raw, f)
}

// scanEnvelope reads the envelope of raw, well-formed JSON, into f; false
// when it cannot read it exactly as encoding/json would. As encoding/json,
// it matches keys without regard to ASCII case and keeps the last of
// duplicate keys; f.Payload is a slice of raw.
func scanEnvelope(raw []byte, f *wireFrame) bool {
	s := scanner{b: raw}
	s.ws()
	if !s.byte('{') {
		return false
	}
	s.ws()
	if s.byte('}') {
		return true
	}
	for {
		key, ok := s.plainString()
		if !ok {
			return false
		}
		s.ws()
		if !s.byte(':') {
			return false
		}
		s.ws()
		start := s.i
		if !s.skipValue(0) {
			return false
		}
		v := raw[start:s.i]
		switch {
		case jsonscan.FoldEqual(key, "type"):
			if !stringField(v, &f.Type) {
				return false
			}
		case jsonscan.FoldEqual(key, "event_id"):
			if !stringField(v, &f.EventID) {
				return false
			}
		case jsonscan.FoldEqual(key, "seq"):
			if !intField(v, &f.Seq) {
				return false
			}
		case jsonscan.FoldEqual(key, "payload"):
			f.Payload = json.RawMessage(v)
		}
		s.ws()
		if s.byte('}') {
			s.ws()
			return s.i == len(raw)
		}
		if !s.byte(',') {
			return false
		}
		s.ws()
	}
}

// stringField sets *dst from v, a JSON string of printable ASCII without
// escapes, or leaves it for null, as encoding/json does.
func stringField(v []byte, dst *string) bool {
	if string(v) == "null" {
		return true
	}
	s := scanner{b: v}
	str, ok := s.plainString()
	if !ok || s.i != len(v) {
		return false
	}
	*dst = string(str)
	return true
}

// intField sets *dst from v, a JSON integer without fraction or exponent
// that fits an int64, or leaves it for null, as encoding/json does.
func intField(v []byte, dst *int64) bool {
	if string(v) == "null" {
		return true
	}
	digits := v
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return false
	}
	*dst = n
	return true
}

// scanner walks well-formed JSON.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plainString reads a string of printable ASCII without escapes and returns
// its content; false for any other string, which a decoder must unescape
// or check for UTF-8.
func (s *scanner) plainString() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// maxSkipDepth bounds the nesting skipValue follows; deeper values go to
// encoding/json, which has its own limit.
const maxSkipDepth = 64

// skipValue moves past one JSON value.
func (s *scanner) skipValue(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case '"':
		s.i++
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '\\':
				s.i += 2
				continue
			case '"':
				s.i++
				return true
			}
			s.i++
		}
		return false
	case '{', '[':
		if depth >= maxSkipDepth {
			return false
		}
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		s.i++
		s.ws()
		if s.byte(end) {
			return true
		}
		for {
			if c == '{' {
				if !s.skipValue(depth + 1) { // the key
					return false
				}
				s.ws()
				if !s.byte(':') {
					return false
				}
				s.ws()
			}
			if !s.skipValue(depth + 1) {
				return false
			}
			s.ws()
			if s.byte(end) {
				return true
			}
			if !s.byte(',') {
				return false
			}
			s.ws()
		}
	default:
		// A number or a literal: up to the next delimiter.
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}
