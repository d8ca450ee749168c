package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// envelopeReserve is the room a payload leaves for the rest of the
// envelope (v, seq, ts, type, event_id and the keys), besides task_id and
// run_id, which are measured.
const envelopeReserve = 512

// cutMark ends a string that was shortened to keep its frame within
// lmp.MaxFrameBytes.
const cutMark = "… [cut: over the frame limit]"

// errFrameTooBig is returned when a frame cannot be brought within the
// frame limit by shortening its payload's strings.
var errFrameTooBig = errors.New("frame over the frame limit")

// encodePayload encodes a server frame's payload so that the whole frame,
// with its envelope, is at most lmp.MaxFrameBytes: a frame the peer cannot
// read would cut every phone off, and stay in the replay buffer to cut it
// off again at every reconnect. Strings a client sent are bounded so that
// their echoes always fit (lmp/limits.go); what Hermes sends is not, so
// its longest strings are shortened, ending in cutMark, until the frame
// fits. Sizes are measured encoded, escapes included.
func encodePayload(p any, taskID, runID *string) (json.RawMessage, error) {
	if r, ok := p.(lmp.TaskListResult); ok {
		return fitPayload(appendTaskListResult(nil, r), taskID, runID)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return fitPayload(raw, taskID, runID)
}

// fitPayload returns an encoded payload as encodePayload does: whole when
// its frame fits lmp.MaxFrameBytes, its longest strings shortened if not.
func fitPayload(raw json.RawMessage, taskID, runID *string) (json.RawMessage, error) {
	// The fast path, without encoding the ids: one byte escapes to at most six.
	if len(raw)+envelopeReserve+maxEncodedLen(taskID)+maxEncodedLen(runID) <= lmp.MaxFrameBytes {
		return raw, nil
	}
	budget := lmp.MaxFrameBytes - envelopeReserve - encodedLen(taskID) - encodedLen(runID)
	if len(raw) <= budget {
		return raw, nil
	}
	if budget <= 0 {
		return nil, fmt.Errorf("%w: task_id and run_id alone take %d bytes", errFrameTooBig, encodedLen(taskID)+encodedLen(runID))
	}
	return fitStrings(raw, budget)
}

func maxEncodedLen(s *string) int {
	if s == nil {
		return len("null")
	}
	return 6*len(*s) + 2
}

func encodedLen(s *string) int {
	raw, _ := json.Marshal(s)
	return len(raw)
}

// fitStrings shortens the longest strings of the JSON value raw until it
// encodes in at most budget bytes: every string longer than a cap is cut
// to it, the cap chosen so that enough bytes go (water-filling), so that
// no one string loses everything while others stay long.
func fitStrings(raw json.RawMessage, budget int) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers keep their exact text
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	size := len(raw)
	for range 8 { // estimates are conservative: one round almost always does
		slots := stringsOf(v)
		capLen := capFor(slots, size-budget)
		if capLen <= len(cutMark)+2 {
			break
		}
		for _, sl := range slots {
			if sl.n > capLen {
				sl.set(cutEncoded(sl.value, capLen-len(cutMark)) + cutMark)
			}
		}
		out, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if size = len(out); size <= budget {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%w: %d bytes after shortening its strings", errFrameTooBig, size)
}

// capFor returns the largest encoded length such that cutting every longer
// string to it (each keeping cutMark) removes at least excess bytes; 0 when
// no cap does.
func capFor(slots []stringSlot, excess int) int {
	removed := func(c int) int {
		n := 0
		for _, sl := range slots {
			if sl.n > c {
				n += sl.n - c
			}
		}
		return n
	}
	lo, hi := 0, 0
	for _, sl := range slots {
		hi = max(hi, sl.n)
	}
	margin := excess + 16 + len(slots)*len(cutMark)/8
	if removed(0) < margin {
		return 0
	}
	for lo < hi { // the largest c with removed(c) >= margin
		mid := (lo + hi + 1) / 2
		if removed(mid) >= margin {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// stringSlot is a string inside a decoded JSON value, and how to replace it.
type stringSlot struct {
	value string
	n     int // encoded length, quotes included
	set   func(string)
}

// stringsOf lists every string in v (an object or array, at any depth) with
// its encoded length.
func stringsOf(v any) []stringSlot {
	var out []stringSlot
	add := func(s string, set func(string)) {
		out = append(out, stringSlot{value: s, n: encodedStringLen(s), set: set})
	}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, child := range t {
				if s, ok := child.(string); ok {
					add(s, func(s string) { t[k] = s })
				} else {
					walk(child)
				}
			}
		case []any:
			for i, child := range t {
				if s, ok := child.(string); ok {
					add(s, func(s string) { t[i] = s })
				} else {
					walk(child)
				}
			}
		}
	}
	walk(v)
	return out
}

// escapedWidth is at least the number of bytes encoding/json writes for
// the character r of size bytes: six for what it escapes as \uXXXX (HTML
// characters, U+2028, U+2029, invalid bytes, most control characters).
func escapedWidth(r rune, size int) int {
	switch {
	case r == '"' || r == '\\':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029:
		return 6
	case r == utf8.RuneError && size == 1:
		return 6
	}
	return size
}

func encodedStringLen(s string) int {
	n := 2
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		n += escapedWidth(r, size)
		s = s[size:]
	}
	return n
}

// cutEncoded returns the longest prefix of s, cut between characters, whose
// JSON encoding is at most n bytes.
func cutEncoded(s string, n int) string {
	size := 2 // the quotes
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if size += escapedWidth(r, w); size > n {
			return s[:i]
		}
		i += w
	}
	return s
}
