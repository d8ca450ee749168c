package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Limits that keep validation cheap on hostile input. A frame beyond them is
// reported as an error, never a crash.
const (
	// MaxBytes is the largest server frame or document validated: 16 MiB,
	// the largest frame the kit's client reads (client.Options.ReadLimit).
	// The spec sets no frame size, so a server frame of any size up to that
	// validates. A client frame is held to MaxClientBytes.
	MaxBytes = 16 << 20
	// MaxClientBytes is the largest client frame validated: the reference
	// server's read limit (docs/protocol.md), which the c2s schemas'
	// maxLengths are sized for.
	MaxClientBytes = lmp.MaxFrameBytes
	// MaxDepth is the deepest nesting of objects and arrays accepted. LMP
	// frames nest four levels at most.
	MaxDepth = 64
	// maxNumberLen bounds a number literal, so that exact arithmetic on it
	// stays cheap.
	maxNumberLen = 400
)

// tooDeep is the problem of text nested deeper than MaxDepth.
var tooDeep = problem{"", fmt.Sprintf("nested more than %d levels deep", MaxDepth)}

// ruleJSON is the rule broken by input that is not a UTF-8 JSON text (T-3).
const ruleJSON = "T-3"

// problem is an error found before schema validation.
type problem struct {
	pointer, message string
}

// instance is a decoded frame, ready for the schema validator.
type instance struct {
	value any
	// fracInts holds the pointers of integral numbers written with a
	// fraction or exponent (1.0, 1e3): JSON Schema counts them as integers,
	// but Go, Kotlin and most decoders reject them for integer fields, so
	// the validator does too.
	fracInts map[string]bool
}

// decode parses raw defensively: size (at most limit bytes), UTF-8,
// nesting depth and number range are checked before anything is allocated
// for the value (T-3).
func decode(raw []byte, limit int) (*instance, []problem) {
	if len(raw) > limit {
		return nil, []problem{{"", fmt.Sprintf("%d bytes, over the %d-byte limit", len(raw), limit)}}
	}
	// T-3: frames are UTF-8 JSON text.
	if !utf8.Valid(raw) {
		return nil, []problem{{"", "not valid UTF-8"}}
	}
	if depth := maxNesting(raw); depth > MaxDepth {
		return nil, []problem{tooDeep}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, []problem{{"", "not JSON: " + err.Error()}}
	}
	// JSON whitespace is space, tab, LF and CR only (RFC 8259 §2), not
	// every Unicode space that bytes.TrimSpace would drop.
	if rest := bytes.Trim(raw[dec.InputOffset():], " \t\n\r"); len(rest) > 0 {
		return nil, []problem{{"", "not one JSON value: data follows it"}}
	}
	in := &instance{value: v}
	var probs []problem
	in.value = in.numbers(v, nil, &probs)
	return in, probs
}

// maxNesting returns the deepest nesting of objects and arrays in raw,
// stopping early once it exceeds MaxDepth. Brackets inside strings do not
// count.
func maxNesting(raw []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > MaxDepth {
					return deepest
				}
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}

// numbers walks v and rewrites every json.Number into a short canonical
// literal: exact for integer literals, the nearest float64 otherwise. An
// integral value written with a fraction or exponent is nudged off the
// integers, so that "type": "integer" rejects it, and remembered for the
// error message. Numbers beyond float64 are problems.
func (in *instance) numbers(v any, path []string, probs *[]problem) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = in.numbers(e, append(path, k), probs)
		}
	case []any:
		for i, e := range v {
			v[i] = in.numbers(e, append(path, strconv.Itoa(i)), probs)
		}
	case json.Number:
		lit := string(v)
		if len(lit) > maxNumberLen {
			*probs = append(*probs, problem{pointerOf(path), fmt.Sprintf("number literal longer than %d characters", maxNumberLen)})
			return json.Number("0")
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil && math.IsInf(f, 0) {
			*probs = append(*probs, problem{pointerOf(path), "number out of the range of a float64"})
			return json.Number("0")
		}
		if !strings.ContainsAny(lit, ".eE") {
			return v // an integer literal: kept exact
		}
		if f == math.Trunc(f) {
			if in.fracInts == nil {
				in.fracInts = map[string]bool{}
			}
			in.fracInts[pointerOf(path)] = true
			if f == 0 {
				return json.Number("0.000001") // also -0.0, kept non-negative
			}
			return json.Number(strconv.FormatFloat(f, 'f', -1, 64) + ".000001")
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return v
}

// pointerOf builds an RFC 6901 JSON pointer from unescaped tokens.
func pointerOf(path []string) string {
	var b strings.Builder
	for _, t := range path {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

var tokenEscaper = strings.NewReplacer("~", "~0", "/", "~1")
var tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

func escapeToken(t string) string { return tokenEscaper.Replace(t) }

// splitPointer splits a JSON pointer into unescaped tokens.
func splitPointer(p string) []string {
	if p == "" || p == "#" {
		return nil
	}
	p = strings.TrimPrefix(p, "#")
	p = strings.TrimPrefix(p, "/")
	toks := strings.Split(p, "/")
	for i, t := range toks {
		toks[i] = tokenUnescaper.Replace(t)
	}
	return toks
}

// lookup returns the value at pointer p in v.
func lookup(v any, p string) (any, bool) {
	for _, t := range splitPointer(p) {
		switch c := v.(type) {
		case map[string]any:
			e, ok := c[t]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}
