package dashboard

import (
	"bytes"

	"github.com/loomi-lmp/lmpkit/internal/jsonscan"
)

// envelope is the part of a frame the log indexes. scanEnvelope finds it
// in one pass over the frame's top level, skipping the payload without
// decoding it: the observer runs on the server's connection goroutines,
// and a full decode of every frame cost more than the rest of the log.
// Its byte slices alias the frame.
type envelope struct {
	Type    []byte // the raw string, or nil
	Seq     int64
	HasSeq  bool
	TaskID  []byte
	RunID   []byte
	Payload []byte // the raw value
}

// scanEnvelope reads the top-level members of a JSON object. It stops at
// the first byte that is not JSON and keeps what it found before: a
// malformed frame is shown as it came.
func scanEnvelope(data []byte) (env envelope) {
	for key, v := range members(data) {
		switch string(key) {
		case "type":
			env.Type = stringValue(v)
		case "seq":
			env.Seq, env.HasSeq = intValue(v)
		case "task_id":
			env.TaskID = stringValue(v)
		case "run_id":
			env.RunID = stringValue(v)
		case "payload":
			env.Payload = v
		}
	}
	return env
}

// members yields the raw key (between its quotes) and the raw value of
// each member of the JSON object at the start of data, in order, and
// stops at the first byte that is not JSON.
func members(data []byte) func(yield func(key, value []byte) bool) {
	return func(yield func(key, value []byte) bool) {
		i := skipSpace(data, 0)
		if i >= len(data) || data[i] != '{' {
			return
		}
		i++
		for {
			i = skipSpace(data, i)
			if i >= len(data) || data[i] != '"' {
				return
			}
			key, end, ok := scanString(data, i)
			if !ok {
				return
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ':' {
				return
			}
			i = skipSpace(data, i+1)
			end, ok = skipValue(data, i)
			if !ok || !yield(key, data[i:end]) {
				return
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ',' {
				return
			}
			i++
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the raw contents of the string at data[i] (a quote)
// and the index after its closing quote.
func scanString(data []byte, i int) (raw []byte, end int, ok bool) {
	q, _ := jsonscan.StringEnd(data, i+1)
	if q < 0 {
		return nil, 0, false
	}
	return data[i+1 : q], q + 1, true
}

// skipValue returns the index after the value at data[i], counting
// brackets outside strings; literals and numbers run to a delimiter.
func skipValue(data []byte, i int) (end int, ok bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		_, end, ok = scanString(data, i)
		return end, ok
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				_, e, ok := scanString(data, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ']' && data[j] != ' ' && data[j] != '\t' && data[j] != '\n' && data[j] != '\r' {
		j++
	}
	return j, j > i
}

// stringValue returns the contents of a JSON string value, unescaped
// (which is rare in an envelope: then it is decoded), or nil for any
// other value.
func stringValue(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	s, ok := jsonscan.Unquote(inner)
	if !ok {
		return nil
	}
	return s
}

// intValue parses a JSON integer; seq is one (E-1).
func intValue(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
