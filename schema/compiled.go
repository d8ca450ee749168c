package schema

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The compiled validator: Go code generated from the frame schemas
// (validate_gen.go, written by `go test ./schema -run TestCompiledIsCurrent
// -update`) walks a jtree and reports the same errors, in the same order,
// as the reference (package jsonschema over the decoded frame, validate.go),
// without decoding into maps, interpreting keywords or formatting messages
// that are not needed. validate_gen.go is derived from the schemas only; a
// test fails when it is stale, and FuzzCompiledMatchesReference runs both
// forms side by side on random and mutated frames.

// checker carries one validation: the tree, the JSON pointer of the value
// being checked (as a stack of tokens), and the errors found. Checkers are
// pooled, so that a valid frame allocates nothing.
type checker struct {
	t     jtree
	dir   Direction
	name  string // the frame's name in errors, computed when first needed
	named bool
	path  []pathTok
	errs  []Error
	// mute > 0 while an "if" subschema is evaluated: failures are counted,
	// not reported.
	mute  int
	fails int
}

var checkers = sync.Pool{New: func() any { return &checker{t: jtree{nodes: make([]jnode, 0, 64)}} }}

// compiledFrame is the generated validator of one frame schema.
type compiledFrame func(c *checker, root int32)

// compiledValidateFrame validates raw with the generated code. It reports
// false, having decided nothing, for input that only the reference judges
// exactly: over the size limit, not UTF-8, not JSON or JSON that
// encoding/json reads differently from what parse models (see jsontree.go).
func compiledValidateFrame(dir Direction, raw []byte) ([]Error, bool) {
	c, ok := parsed(dir, raw)
	if !ok {
		return nil, false
	}
	defer c.release()
	return c.check(dir)
}

// parsed parses raw into a pooled checker, or reports false, having
// decided nothing, for input that only the reference judges exactly. The
// caller releases the checker.
func parsed(dir Direction, raw []byte) (*checker, bool) {
	limit := MaxBytes
	if dir == ClientToServer {
		limit = MaxClientBytes
	}
	if len(raw) > limit || !utf8.Valid(raw) {
		return nil, false
	}
	c := checkers.Get().(*checker)
	if !c.t.parse(raw) {
		c.release()
		return nil, false
	}
	return c, true
}

// check validates the parsed frame in direction dir with the generated
// code, or reports false for a frame only the reference judges.
func (c *checker) check(dir Direction) ([]Error, bool) {
	var table map[string]compiledFrame
	switch dir {
	case ServerToClient:
		table = compiledS2C
	case ClientToServer:
		table = compiledC2S
	default:
		return nil, false
	}
	if c.t.deep {
		// T-3: the reference refuses a frame nested deeper than MaxDepth
		// before any schema, and names no frame type.
		return problemErrors("frame", []problem{tooDeep}), true
	}
	c.dir, c.named, c.path, c.errs, c.mute, c.fails = dir, false, c.path[:0], nil, 0, 0
	validate := table["envelope"]
	if typ := c.rootMember("type"); typ >= 0 && c.kind(typ) == kindString {
		if t := c.t.text(typ, false); knownTypes[dir][string(t)] {
			f, ok := table[string(t)]
			if !ok {
				return nil, false // a type without a schema: the reference says so
			}
			validate = f
		}
	}
	validate(c, 0)
	if dir == ServerToClient {
		c.checkEventID()
	}
	return tidy(c.errs), true
}

func (c *checker) release() {
	c.t.raw, c.errs = nil, nil
	if !c.t.oversized() {
		checkers.Put(c)
	}
}

// rootMember is the root object's member called name, or -1.
func (c *checker) rootMember(name string) int32 {
	if c.kind(0) != kindObject {
		return -1
	}
	return c.t.member(0, name)
}

// frameName is ValidateFrame's name for the frame (frameName in validate.go).
func (c *checker) frameName() string {
	if c.named {
		return c.name
	}
	c.named, c.name = true, "frame"
	if typ := c.rootMember("type"); typ >= 0 && c.kind(typ) == kindString {
		t := string(c.t.text(typ, false))
		c.name = frameName(knownTypes[c.dir], map[string]any{"type": t})
	}
	return c.name
}

// checkEventID is E-3's cross-field half, as checkEventID in validate.go:
// skipped when seq, event_id or the frame already has an error.
func (c *checker) checkEventID() {
	for _, e := range c.errs {
		if e.Pointer == "/seq" || e.Pointer == "/event_id" || e.Pointer == "" {
			return
		}
	}
	seq, id := c.rootMember("seq"), c.rootMember("event_id")
	if seq < 0 || id < 0 || c.kind(seq) != kindNumber || c.kind(id) != kindString || !c.isInteger(seq) {
		return
	}
	nd := &c.t.nodes[seq]
	lit := c.t.raw[nd.start:nd.end]
	got := c.t.text(id, false)
	if len(got) == len(lit)+2 && got[0] == 'e' && got[1] == '_' && bytes.Equal(got[2:], lit) {
		return
	}
	want := "e_" + string(lit)
	// E-3: event_id is "e_<seq>" of this very frame.
	c.errs = append(c.errs, Error{Frame: c.frameName(), Pointer: "/event_id", Rule: "E-3", Message: fmt.Sprintf("must be %q, naming the frame's seq", want)})
}

// pathTok is one pointer token: a property name (already escaped) or an
// array index.
type pathTok struct {
	name  string
	index int
}

func (c *checker) push(escapedName string) { c.path = append(c.path, pathTok{name: escapedName}) }
func (c *checker) pushIndex(i int)         { c.path = append(c.path, pathTok{index: i}) }
func (c *checker) pop()                    { c.path = c.path[:len(c.path)-1] }

func (c *checker) pointer(extra string) string {
	if len(c.path) == 0 && extra == "" {
		return ""
	}
	var b []byte
	for _, tok := range c.path {
		b = append(b, '/')
		if tok.name != "" {
			b = append(b, tok.name...)
		} else {
			b = strconv.AppendInt(b, int64(tok.index), 10)
		}
	}
	if extra != "" {
		b = append(b, '/')
		b = append(b, extra...)
	}
	return string(b)
}

// fail reports a failure at the current pointer (plus extra, a required
// field's escaped name, when not empty).
func (c *checker) fail(extra, rule, message string) {
	c.fails++
	if c.mute > 0 {
		return
	}
	c.errs = append(c.errs, Error{Frame: c.frameName(), Pointer: c.pointer(extra), Rule: rule, Message: message})
}

// kind reports the JSON kind of n.
func (c *checker) kind(n int32) jsonKind { return c.t.nodes[n].kind }

// isInteger reports whether n is a number the reference counts as an
// integer: an integer literal. An integral value written with a fraction
// or exponent is not one (decode.go nudges it off the integers).
func (c *checker) isInteger(n int32) bool {
	nd := &c.t.nodes[n]
	return nd.kind == kindNumber && !bytes.ContainsAny(c.t.raw[nd.start:nd.end], ".eE")
}

// fracInt reports whether n is an integral number written with a fraction
// or exponent (1.0, 1e3), which messages name.
func (c *checker) fracInt(n int32) bool {
	nd := &c.t.nodes[n]
	if nd.kind != kindNumber {
		return false
	}
	lit := c.t.raw[nd.start:nd.end]
	if !bytes.ContainsAny(lit, ".eE") {
		return false
	}
	f, _ := strconv.ParseFloat(string(lit), 64)
	return f == math.Trunc(f)
}

// typeName is the JSON type of n as messages name it (jsonType).
func (c *checker) typeName(n int32) string {
	switch c.kind(n) {
	case kindNull:
		return "null"
	case kindTrue, kindFalse:
		return "boolean"
	case kindString:
		return "string"
	case kindNumber:
		if c.isInteger(n) {
			return "integer"
		}
		return "number"
	case kindArray:
		return "array"
	}
	return "object"
}

// typeFailed reports a type failure with the reference's wording.
func (c *checker) typeFailed(n int32, rule, want string, wantsInteger bool) {
	if c.mute > 0 {
		c.fails++
		return
	}
	if wantsInteger && c.fracInt(n) {
		c.fail("", rule, "must be an integer literal, not a number written with a fraction or exponent")
		return
	}
	c.fail("", rule, "must be "+want+", not "+c.typeName(n))
}

// constFailed reports a const failure; integral values written with a
// fraction get the reference's other wording.
func (c *checker) constFailed(n int32, rule, want string) {
	if c.mute == 0 && c.fracInt(n) {
		c.fail("", rule, "must be "+want+", written as an integer literal")
		return
	}
	c.fail("", rule, "must be "+want)
}

// textIs reports whether n is a string equal to s.
func (c *checker) textIs(n int32, s string) bool {
	nd := &c.t.nodes[n]
	switch {
	case nd.kind != kindString:
		return false
	case !nd.esc:
		return string(c.t.raw[nd.start:nd.end]) == s
	case int(nd.end-nd.start) > 6*len(s):
		// An escape is at most six bytes for at least one byte of the
		// value: no need to unescape a long text (an enum is tried value
		// by value) to see that it is not s.
		return false
	}
	return string(c.t.text(n, false)) == s
}

// intIs reports whether n is a number equal to the integer v.
func (c *checker) intIs(n int32, v int64) bool {
	got, ok := c.intValue(n)
	return ok && got == v
}

// intValue is an integer literal's value; ok is false for other numbers.
// Integer literals of more than 18 digits never reach here (parseTree
// leaves them to the reference).
func (c *checker) intValue(n int32) (int64, bool) {
	if !c.isInteger(n) {
		return 0, false
	}
	nd := &c.t.nodes[n]
	v, err := strconv.ParseInt(string(c.t.raw[nd.start:nd.end]), 10, 64)
	return v, err == nil
}

// numCmp compares the number n with the integral bound b as the reference
// does, exactly, after decode.go's canonicalisation: -1, 0 or +1. An
// integral value written with a fraction or exponent is nudged by 0.000001
// away from zero (and 0.0, -0.0 to +0.000001), so it never equals b; a
// non-integral value's shortest decimal orders against b as its float does.
func (c *checker) numCmp(n int32, b float64) int {
	if v, ok := c.intValue(n); ok {
		return cmpInt(v, int64(b))
	}
	nd := &c.t.nodes[n]
	f, _ := strconv.ParseFloat(string(c.t.raw[nd.start:nd.end]), 64)
	switch {
	case f == math.Trunc(f) && f >= 0: // -0.0 too
		if f >= b {
			return +1
		}
		return -1
	case f == math.Trunc(f):
		if f > b {
			return +1
		}
		return -1
	case f < b:
		return -1
	}
	return +1
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return +1
	}
	return 0
}

// runes counts a string's characters, as maxLength does, without
// unescaping it: an escape sequence is one character (parse leaves the
// escapes of surrogates, which pair into one, to the reference).
func (c *checker) runes(n int32) int {
	nd := &c.t.nodes[n]
	s := c.t.raw[nd.start:nd.end]
	if !nd.esc {
		return utf8.RuneCount(s)
	}
	count := 0
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return count + utf8.RuneCount(s)
		}
		count += utf8.RuneCount(s[:i]) + 1
		if s[i+1] == 'u' {
			s = s[i+6:]
		} else {
			s = s[i+2:]
		}
	}
	return count
}

// lengthFailed words a minLength or maxLength failure as message() does;
// word is "at least" or "at most".
func (c *checker) lengthFailed(n int32, rule, word string, bound int) {
	if c.mute > 0 {
		c.fails++
		return
	}
	unit := "characters"
	if bound == 1 {
		unit = "character"
	}
	c.fail("", rule, fmt.Sprintf("must be %s %d %s, not %d", word, bound, unit, c.runes(n)))
}
