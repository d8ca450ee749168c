package schema

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"
)

// jsontree is the compiled validator's view of a frame: a strict one-pass
// parse into a flat, reusable slice of nodes that point back into the raw
// bytes. Nothing is copied or converted unless a check needs it (a string
// with escapes is unescaped when it is compared, a number is parsed when it
// is bounded).
//
// It accepts a subset of what encoding/json accepts, with the same value:
// whenever it is unsure (a syntax error, a lone surrogate escape, a number
// the reference canonicalises into something else, nesting beyond
// encoding/json's limit), it gives up and the reference validator decides.
// That keeps the compiled form's verdicts and messages those of the
// reference by construction on everything it does not handle.
//
// A container nested deeper than MaxDepth is scanned but not modelled: the
// reference refuses such a frame before any schema applies, whatever the
// container holds (deepValue).

// jsonKind is a JSON value's kind.
type jsonKind uint8

const (
	kindNull jsonKind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// jnode is one value. Containers list their children through first and
// next; a member of an object carries its key's span.
type jnode struct {
	kind             jsonKind
	esc, keyEsc      bool  // the string (key) holds escape sequences
	start, end       int32 // a string's contents without quotes; any other value's text
	keyStart, keyEnd int32
	first, next      int32 // -1: none
}

// jtree is a parsed frame. It lives in a pooled checker, reused from frame
// to frame.
type jtree struct {
	raw   []byte
	nodes []jnode
	buf   []byte // unescaped strings, valid until release
	pos   int
	depth int
	// modelled is false after a failed parse that gave up on text it does
	// not model rather than on a syntax error; true otherwise, when a
	// failed parse means encoding/json refuses raw too.
	modelled bool
	// trailing is true when a failed parse read one whole value and
	// found more than whitespace after it.
	trailing bool
	// deep is true when a container lies deeper than MaxDepth. Its node
	// has no children; check gives the reference's verdict on the frame.
	deep bool
	// overNesting is true when a failed parse gave up on a container
	// nested beyond encoding/json's limit, which encoding/json refuses as
	// no JSON whatever follows.
	overNesting bool
	// opens is deepValue's stack of open containers, one bit each (1: an
	// object), kept from frame to frame.
	opens []uint64
	// unescaped remembers where text put a frame's first long escaped
	// strings in buf, so that a string read more than once (its frame's
	// type, by the envelope and the schemas) is unescaped once.
	unescaped []unescapedText
}

// unescapedText is a string node's value (or key) unescaped into buf[from:to].
type unescapedText struct {
	node     int32
	key      bool
	from, to int32
}

// Which strings text remembers: up to rememberTexts of them, each at least
// rememberLen bytes long as written; a short one costs less to unescape
// again than to look up.
const (
	rememberTexts = 8
	rememberLen   = 64
)

// maxJSONDepth is encoding/json's nesting limit: it refuses text nested
// deeper as no JSON, and decodes text nested up to it.
const maxJSONDepth = 10000

// parse parses raw into t, or reports false when the reference validator
// must decide (see above). The root is node 0.
func (t *jtree) parse(raw []byte) bool {
	t.raw, t.nodes, t.buf, t.pos, t.depth = raw, t.nodes[:0], t.buf[:0], 0, 0
	t.modelled, t.trailing, t.deep, t.overNesting = true, false, false, false
	t.unescaped = t.unescaped[:0]
	if len(raw) > 1<<31-1 {
		return t.unmodelled()
	}
	t.ws()
	if _, ok := t.value(); !ok {
		return false
	}
	t.ws()
	t.trailing = t.pos != len(raw)
	return !t.trailing
}

// unmodelled gives up on text parse does not model (see above): it may be
// JSON.
func (t *jtree) unmodelled() bool {
	t.modelled = false
	return false
}

// oversized reports whether t grew too large to be worth keeping in a pool.
// Its buffer of unescaped strings is kept up to 256 KiB: a frame with a long
// escaped string, which a fuzzer sends often, would otherwise allocate one.
func (t *jtree) oversized() bool { return cap(t.nodes) > 4096 || cap(t.buf) > 256<<10 }

// ws skips JSON whitespace: space, tab, LF and CR only (RFC 8259 §2).
func (t *jtree) ws() {
	for t.pos < len(t.raw) {
		switch t.raw[t.pos] {
		case ' ', '\t', '\n', '\r':
			t.pos++
		default:
			return
		}
	}
}

func (t *jtree) add(n jnode) int32 {
	t.nodes = append(t.nodes, n)
	return int32(len(t.nodes) - 1)
}

func (t *jtree) value() (int32, bool) {
	if t.pos >= len(t.raw) {
		return -1, false
	}
	switch c := t.raw[t.pos]; {
	case (c == '{' || c == '[') && t.depth >= MaxDepth:
		return t.deepValue()
	case c == '{':
		return t.object()
	case c == '[':
		return t.array()
	case c == '"':
		start, end, esc, ok := t.str()
		if !ok {
			return -1, false
		}
		return t.add(jnode{kind: kindString, start: start, end: end, esc: esc, first: -1, next: -1}), true
	case c == '-' || (c >= '0' && c <= '9'):
		return t.number()
	case c == 't':
		return t.literal("true", kindTrue)
	case c == 'f':
		return t.literal("false", kindFalse)
	case c == 'n':
		return t.literal("null", kindNull)
	}
	return -1, false
}

func (t *jtree) literal(word string, k jsonKind) (int32, bool) {
	if len(t.raw)-t.pos < len(word) || string(t.raw[t.pos:t.pos+len(word)]) != word {
		return -1, false
	}
	t.pos += len(word)
	return t.add(jnode{kind: k, start: int32(t.pos - len(word)), end: int32(t.pos), first: -1, next: -1}), true
}

func (t *jtree) object() (int32, bool) {
	t.depth++
	self := t.add(jnode{kind: kindObject, start: int32(t.pos), first: -1, next: -1})
	t.pos++ // {
	last := int32(-1)
	t.ws()
	if t.pos < len(t.raw) && t.raw[t.pos] == '}' {
		return t.close(self), true
	}
	for {
		if t.pos >= len(t.raw) || t.raw[t.pos] != '"' {
			return -1, false
		}
		ks, ke, kesc, ok := t.str()
		if !ok {
			return -1, false
		}
		t.ws()
		if t.pos >= len(t.raw) || t.raw[t.pos] != ':' {
			return -1, false
		}
		t.pos++
		t.ws()
		child, ok := t.value()
		if !ok {
			return -1, false
		}
		c := &t.nodes[child]
		c.keyStart, c.keyEnd, c.keyEsc = ks, ke, kesc
		if last < 0 {
			t.nodes[self].first = child
		} else {
			t.nodes[last].next = child
		}
		last = child
		t.ws()
		if t.pos >= len(t.raw) {
			return -1, false
		}
		switch t.raw[t.pos] {
		case ',':
			t.pos++
			t.ws()
		case '}':
			return t.close(self), true
		default:
			return -1, false
		}
	}
}

// close ends the container self at its closing bracket, at t.pos.
func (t *jtree) close(self int32) int32 {
	t.pos++
	t.depth--
	t.nodes[self].end = int32(t.pos)
	return self
}

func (t *jtree) array() (int32, bool) {
	t.depth++
	self := t.add(jnode{kind: kindArray, start: int32(t.pos), first: -1, next: -1})
	t.pos++ // [
	last := int32(-1)
	t.ws()
	if t.pos < len(t.raw) && t.raw[t.pos] == ']' {
		return t.close(self), true
	}
	for {
		child, ok := t.value()
		if !ok {
			return -1, false
		}
		if last < 0 {
			t.nodes[self].first = child
		} else {
			t.nodes[last].next = child
		}
		last = child
		t.ws()
		if t.pos >= len(t.raw) {
			return -1, false
		}
		switch t.raw[t.pos] {
		case ',':
			t.pos++
			t.ws()
		case ']':
			return t.close(self), true
		default:
			return -1, false
		}
	}
}

// deepValue scans the container at t.pos, which lies deeper than MaxDepth,
// into one childless node and sets t.deep. The reference refuses a frame
// that holds such a container before any schema, whatever it holds, once
// the frame is JSON; so only the container's syntax is checked, without
// recursion, and the frame's envelope is read off the tree as before,
// which saves encoding/json's parse of up to 10,000 levels. It refuses
// what str, numberEnd and literal refuse, and gives up (the reference
// decides, though overNesting tells a client frame's decoder that
// encoding/json refuses it) on nesting beyond encoding/json's limit, on a key that
// lmp.Unmarshal would drop (it rewrites the text around one), and on
// what str leaves to the reference.
func (t *jtree) deepValue() (int32, bool) {
	start, kind := t.pos, kindArray
	if t.raw[start] == '{' {
		kind = kindObject
	}
	opens, n := t.opens[:0], 0 // the containers open, n of them
	for {
		// A value starts at t.pos.
		if t.pos >= len(t.raw) {
			return -1, false
		}
		switch c := t.raw[t.pos]; c {
		case '{', '[':
			if t.depth+n+1 > maxJSONDepth {
				t.overNesting = true
				return -1, t.unmodelled()
			}
			word, bit := n/64, uint64(1)<<(n%64)
			if word == len(opens) {
				opens = append(opens, 0)
			}
			if c == '{' {
				opens[word] |= bit
			} else {
				opens[word] &^= bit
			}
			n++
			t.pos++
			t.ws()
			if t.pos < len(t.raw) && t.raw[t.pos] == c+2 { // '{'+2 is '}', '['+2 is ']'
				t.pos++
				n--
				break
			}
			if c == '{' && !t.deepKey() {
				return -1, false
			}
			continue
		case '"':
			if _, _, _, ok := t.str(); !ok {
				return -1, false
			}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			// Only the grammar matters: nothing reads the number's value.
			if _, ok := t.numberEnd(); !ok {
				return -1, false
			}
		default:
			var ok bool
			switch c {
			case 't':
				_, ok = t.literal("true", kindTrue)
			case 'f':
				_, ok = t.literal("false", kindFalse)
			case 'n':
				_, ok = t.literal("null", kindNull)
			}
			if !ok {
				return -1, false
			}
			t.nodes = t.nodes[:len(t.nodes)-1] // the literal's node: the deep value has none
		}
		// A value ended: close containers, or go on to the next element.
		for {
			if n == 0 {
				t.opens, t.deep = opens, true
				return t.add(jnode{kind: kind, start: int32(start), end: int32(t.pos), first: -1, next: -1}), true
			}
			t.ws()
			if t.pos >= len(t.raw) {
				return -1, false
			}
			object := opens[(n-1)/64]&(1<<((n-1)%64)) != 0
			c := t.raw[t.pos]
			if c == ',' {
				t.pos++
				t.ws()
				if object && !t.deepKey() {
					return -1, false
				}
				break
			}
			if object && c == '}' || !object && c == ']' {
				t.pos++
				n--
				continue
			}
			return -1, false
		}
	}
}

// deepKey scans a member's key and colon inside a deep value (deepValue),
// and gives up on a key of another form than an LMP field name
// (foreignKey).
func (t *jtree) deepKey() bool {
	if t.pos >= len(t.raw) || t.raw[t.pos] != '"' {
		return false
	}
	start, end, esc, ok := t.str()
	if !ok {
		return false
	}
	if esc || foreign(t.raw[start:end]) {
		return t.unmodelled()
	}
	t.ws()
	if t.pos >= len(t.raw) || t.raw[t.pos] != ':' {
		return false
	}
	t.pos++
	t.ws()
	return true
}

// str scans a string at t.pos and returns the span of its contents. Raw
// control characters, bad escapes and \u escapes of surrogates (which
// encoding/json pairs or replaces) are left to the reference.
func (t *jtree) str() (start, end int32, esc, ok bool) {
	t.pos++ // "
	start = int32(t.pos)
	for t.pos < len(t.raw) {
		c := t.raw[t.pos]
		if !stringStop[c] {
			t.pos++
			continue
		}
		switch {
		case c == '"':
			end = int32(t.pos)
			t.pos++
			return start, end, esc, true
		case c < 0x20:
			return 0, 0, false, false
		case c == '\\':
			esc = true
			if t.pos+1 >= len(t.raw) {
				return 0, 0, false, false
			}
			switch t.raw[t.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				t.pos += 2
			case 'u':
				r, ok := hex4(t.raw[t.pos+2:])
				if !ok {
					return 0, 0, false, false
				}
				if utf16Surrogate(r) {
					return 0, 0, false, t.unmodelled()
				}
				t.pos += 6
			default:
				return 0, 0, false, false
			}
		default:
			t.pos++
		}
	}
	return 0, 0, false, false
}

// hex4 reads the four hex digits of a \u escape. A fuzzer writes whole
// strings in escapes, so it looks the digits up rather than branching.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	d0, d1, d2, d3 := hexValue[b[0]], hexValue[b[1]], hexValue[b[2]], hexValue[b[3]]
	if d0|d1|d2|d3 < 0 {
		return 0, false
	}
	return rune(d0)<<12 | rune(d1)<<8 | rune(d2)<<4 | rune(d3), true
}

// stringStop marks the bytes that end a run of a string's plain bytes: its
// closing quote, an escape, or a control byte, which JSON does not allow.
var stringStop = func() (v [256]bool) {
	for c := range 0x20 {
		v[c] = true
	}
	v['"'], v['\\'] = true, true
	return v
}()

// hexValue is the value of each hex digit, -1 for every other byte.
var hexValue = func() (v [256]int8) {
	for i := range v {
		switch c := byte(i); {
		case c >= '0' && c <= '9':
			v[i] = int8(c - '0')
		case c >= 'a' && c <= 'f':
			v[i] = int8(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v[i] = int8(c - 'A' + 10)
		default:
			v[i] = -1
		}
	}
	return v
}()

func utf16Surrogate(r rune) bool { return r >= 0xD800 && r < 0xE000 }

// number scans a number literal by the JSON grammar. Literals the reference
// would report or rewrite in a way this form does not model (longer than
// maxNumberLen, or with an exponent that overflows a float64) are left to
// the reference.
func (t *jtree) number() (int32, bool) {
	start := t.pos
	plain, ok := t.numberEnd()
	if !ok {
		return -1, false
	}
	lit := t.raw[start:t.pos]
	if len(lit) > 300 { // the reference's limits (maxNumberLen, float64 range) are near
		return -1, t.unmodelled()
	}
	if plain && len(lit) > 18 { // beyond int64's exact range: the reference compares it
		return -1, t.unmodelled()
	}
	if !plain {
		if _, err := strconv.ParseFloat(string(lit), 64); err != nil { // beyond float64
			return -1, t.unmodelled()
		}
	}
	return t.add(jnode{kind: kindNumber, start: int32(start), end: int32(t.pos), first: -1, next: -1}), true
}

// numberEnd moves t.pos past a number literal, or reports false when the
// text there is none. plain is true for an integer literal (no fraction,
// no exponent).
func (t *jtree) numberEnd() (plain, ok bool) {
	b := t.raw
	if b[t.pos] == '-' {
		t.pos++
	}
	switch {
	case t.pos < len(b) && b[t.pos] == '0':
		t.pos++
	case t.pos < len(b) && b[t.pos] >= '1' && b[t.pos] <= '9':
		for t.pos < len(b) && b[t.pos] >= '0' && b[t.pos] <= '9' {
			t.pos++
		}
	default:
		return false, false
	}
	plain = true
	if t.pos < len(b) && b[t.pos] == '.' {
		plain = false
		t.pos++
		if !digits(b, &t.pos) {
			return false, false
		}
	}
	if t.pos < len(b) && (b[t.pos] == 'e' || b[t.pos] == 'E') {
		plain = false
		t.pos++
		if t.pos < len(b) && (b[t.pos] == '+' || b[t.pos] == '-') {
			t.pos++
		}
		if !digits(b, &t.pos) {
			return false, false
		}
	}
	return plain, true
}

func digits(b []byte, pos *int) bool {
	start := *pos
	for *pos < len(b) && b[*pos] >= '0' && b[*pos] <= '9' {
		*pos++
	}
	return *pos > start
}

// span is n's JSON text as it appears in the frame, quotes included.
func (t *jtree) span(n int32) []byte {
	nd := &t.nodes[n]
	if nd.kind == kindString {
		return t.raw[nd.start-1 : nd.end+1]
	}
	return t.raw[nd.start:nd.end]
}

// text returns a string node's value (or a member's key, when key is
// true), unescaped. The slice is valid until release.
func (t *jtree) text(n int32, key bool) []byte {
	nd := &t.nodes[n]
	s, e, esc := nd.start, nd.end, nd.esc
	if key {
		s, e, esc = nd.keyStart, nd.keyEnd, nd.keyEsc
	}
	if !esc {
		return t.raw[s:e]
	}
	long := e-s >= rememberLen
	if long {
		for _, u := range t.unescaped {
			if u.node == n && u.key == key {
				return t.buf[u.from:u.to]
			}
		}
	}
	from := len(t.buf)
	t.unescape(t.raw[s:e])
	if long && len(t.unescaped) < rememberTexts {
		t.unescaped = append(t.unescaped, unescapedText{node: n, key: key, from: int32(from), to: int32(len(t.buf))})
	}
	return t.buf[from:]
}

// unescape appends the unescaped value of a string's contents src to buf.
func (t *jtree) unescape(src []byte) {
	t.buf = slices.Grow(t.buf, len(src)) // unescaping never lengthens
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '\\')
		if j < 0 {
			t.buf = append(t.buf, src[i:]...)
			break
		}
		t.buf = append(t.buf, src[i:i+j]...) // the run before the escape
		i += j
		switch src[i+1] {
		case 'b':
			t.buf = append(t.buf, '\b')
		case 'f':
			t.buf = append(t.buf, '\f')
		case 'n':
			t.buf = append(t.buf, '\n')
		case 'r':
			t.buf = append(t.buf, '\r')
		case 't':
			t.buf = append(t.buf, '\t')
		case 'u':
			r, _ := hex4(src[i+2:])
			t.buf = utf8.AppendRune(t.buf, r)
			i += 6
			continue
		default: // " \ /
			t.buf = append(t.buf, src[i+1])
		}
		i += 2
	}
}

// member returns the value of obj's member called name, the last one when
// the name repeats (as encoding/json decodes it), or -1.
func (t *jtree) member(obj int32, name string) int32 {
	found := int32(-1)
	for c := t.nodes[obj].first; c >= 0; c = t.nodes[c].next {
		nd := &t.nodes[c]
		if !nd.keyEsc {
			if string(t.raw[nd.keyStart:nd.keyEnd]) == name {
				found = c
			}
			continue
		}
		if string(t.text(c, true)) == name {
			found = c
		}
	}
	return found
}
