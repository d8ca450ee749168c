package validate

import (
	"bytes"
	"encoding/json"
	"errors"
)

// frame is one frame found in an input, with where it was found.
type frame struct {
	raw  []byte
	line int // 1-based line where the frame starts
	elem int // 1-based index within a top-level JSON array; 0 when not in one
}

// errNotJSON says an input holds no JSON at all.
var errNotJSON = errors.New("no JSON frame found")

// split finds the frames in an input: one JSON value, a JSON array of
// frames, a stream of JSON values such as NDJSON, or (when that stream
// breaks) one frame per line, where a line that is not JSON is a frame of
// its own that will fail validation. Input in which nothing parses as JSON
// is errNotJSON.
func split(data []byte) ([]frame, error) {
	// A UTF-8 byte order mark is an artefact of the file (editors on
	// Windows write one), not part of its first frame (RFC 8259 §8.1).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if frames, ok := splitStream(data); ok {
		if len(frames) == 0 {
			return nil, errNotJSON
		}
		return frames, nil
	}
	return splitLines(data)
}

// splitStream decodes data as a sequence of JSON values.
func splitStream(data []byte) ([]frame, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var frames []frame
	for {
		start := skipSpace(data, int(dec.InputOffset()))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			if start >= len(data) {
				return frames, true // clean end of input
			}
			return nil, false
		}
		line := lineAt(data, start)
		if len(v) > 0 && v[0] == '[' {
			var elems []json.RawMessage
			if err := json.Unmarshal(v, &elems); err != nil {
				return nil, false
			}
			for i, e := range elems {
				frames = append(frames, frame{raw: e, line: line, elem: i + 1})
			}
			continue
		}
		frames = append(frames, frame{raw: v, line: line})
	}
}

// splitLines treats every non-blank line as one frame (NDJSON with damage).
func splitLines(data []byte) ([]frame, error) {
	var frames []frame
	anyJSON := false
	for i, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if json.Valid(l) {
			anyJSON = true
		}
		frames = append(frames, frame{raw: l, line: i + 1})
	}
	if !anyJSON {
		return nil, errNotJSON
	}
	return frames, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
