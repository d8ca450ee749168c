package schema

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// DecodeClientFrame reads a client frame once for a server: it decodes raw
// into an lmp.ClientFrame as lmp.Unmarshal does (the same frame, and an
// error exactly when lmp.Unmarshal gives one, though worded differently
// when raw is not JSON) and, when that succeeds, returns
// ValidateFrame(ClientToServer, raw) as well.
//
// Both come from the compiled validator's single parse of raw: the
// envelope's three fields are read off its tree, so the frame's bytes are
// scanned once rather than three times (encoding/json checks a whole input's
// syntax before it decodes it, and then validation parses it again). Where
// that tree and encoding/json could read raw differently (a key
// lmp.Unmarshal would drop, an envelope field of the wrong type, input the
// tree leaves to the reference), lmp.Unmarshal and ValidateFrame decide.
func DecodeClientFrame(raw []byte) (lmp.ClientFrame, []Error, error) {
	if len(raw) <= MaxClientBytes && utf8.Valid(raw) {
		c := checkers.Get().(*checker)
		f, errs, decided, err := c.decodeClientFrame(raw, false)
		c.release()
		if decided {
			return f, errs, err
		}
	}
	var f lmp.ClientFrame
	if err := lmp.Unmarshal(raw, &f); err != nil {
		return f, nil, err
	}
	return f, ValidateFrame(ClientToServer, raw), nil
}

// Request is a client frame as a server reads it (ReadRequest).
type Request struct {
	// Frame is the frame as DecodeClientFrame decodes it, except that its
	// Payload is a slice of the text it was read from, valid only as long
	// as that text is.
	Frame lmp.ClientFrame
	// Errs are ValidateFrame(ClientToServer, raw)'s errors.
	Errs []Error
	// payload is the payload decoded off the tree, when decoded is true;
	// requestID is RequestIDOf(Frame.Payload), when hasRequestID is.
	payload      lmp.Payload
	decoded      bool
	requestID    string
	hasRequestID bool
}

// ReadRequest is DecodeClientFrame for a server that refuses most of the
// frames it reads (a fuzzer's) and serves the others: the frame's payload is
// not copied, and its typed payload comes from the same single parse
// (Request.Payload).
func ReadRequest(raw []byte) (Request, error) {
	var r Request
	var err error
	if len(raw) <= MaxClientBytes && utf8.Valid(raw) {
		c := checkers.Get().(*checker)
		var decided bool
		r, decided, err = c.readRequest(raw)
		c.release()
		if decided {
			return r, err
		}
	}
	if err := lmp.Unmarshal(raw, &r.Frame); err != nil {
		return r, err
	}
	r.Errs = ValidateFrame(ClientToServer, raw)
	return r, nil
}

// Payload returns the frame's payload as lmp.DecodeClientPayload(r.Frame)
// decodes it: the same value, and an error exactly when that gives one.
// Where the single parse did not decode it, lmp.DecodeClientPayload does,
// from Frame.Payload: call Payload while the text r was read from is valid.
func (r *Request) Payload() (lmp.Payload, error) {
	if r.decoded {
		return r.payload, nil
	}
	return lmp.DecodeClientPayload(r.Frame)
}

// RequestID returns RequestIDOf(r.Frame.Payload): the request_id a refusal
// of the frame names. Where the single parse did not read it, RequestIDOf
// does, from Frame.Payload: call RequestID while the text r was read from
// is valid.
func (r *Request) RequestID() string {
	if r.hasRequestID {
		return r.requestID
	}
	return RequestIDOf(r.Frame.Payload)
}

// readRequest is ReadRequest from one parse, or decided false where
// lmp.Unmarshal and ValidateFrame must decide. Of a frame that decodes
// with a payload, it decodes the typed payload when the frame passes the
// schemas, and reads the request_id a refusal names when it does not:
// what a server uses of each.
func (c *checker) readRequest(raw []byte) (r Request, decided bool, err error) {
	r.Frame, r.Errs, decided, err = c.decodeClientFrame(raw, true)
	if !decided || err != nil || r.Frame.Payload == nil {
		return r, decided, err
	}
	pay := c.t.member(0, "payload")
	if len(r.Errs) > 0 {
		r.requestID, r.hasRequestID = c.memberText(pay, "request_id"), true
	} else {
		r.payload, r.decoded = c.clientPayload(r.Frame.Type, pay)
	}
	return r, true, nil
}

// memberText is the value of obj's last member called name when that is
// a string, as RequestIDOf reads request_id; "" otherwise, and when obj is
// no object. The tree holds no key lmp.Unmarshal would drop (foreignKey),
// so keys are compared as written.
func (c *checker) memberText(obj int32, name string) string {
	t := &c.t
	if t.nodes[obj].kind != kindObject {
		return ""
	}
	text := ""
	for m := t.nodes[obj].first; m >= 0; m = t.nodes[m].next {
		nd := &t.nodes[m]
		if string(t.raw[nd.keyStart:nd.keyEnd]) != name {
			continue
		}
		// The last one counts, whatever its kind: a later number or
		// null replaces an earlier string.
		text = ""
		if nd.kind == kindString {
			text = string(t.text(m, false))
		}
	}
	return text
}

// errNotJSON is DecodeClientFrame's error for a frame that is no JSON text.
var errNotJSON = errors.New("not a JSON text")

// decodeClientFrame is DecodeClientFrame from one parse, with the payload a
// slice of raw when alias is true (as ReadRequest has it), or decided false
// where lmp.Unmarshal and ValidateFrame must decide.
func (c *checker) decodeClientFrame(raw []byte, alias bool) (f lmp.ClientFrame, errs []Error, decided bool, err error) {
	if !c.t.parse(raw) {
		// A syntax error fails encoding/json as well, and so lmp.Unmarshal,
		// except that for text that may hold foreign keys it reads a
		// value at the start when a closing bracket follows it (as
		// json.Decoder's More sees it): that case, and text the tree does
		// not model, are left to it.
		// Nesting beyond encoding/json's limit fails it however the text
		// goes on, and so lmp.Unmarshal, whose decoder reads the same
		// first value.
		if c.t.overNesting {
			return f, nil, true, errNotJSON
		}
		if !c.t.modelled || c.t.trailing && (raw[c.t.pos] == ']' || raw[c.t.pos] == '}') {
			return f, nil, false, nil
		}
		return f, nil, true, errNotJSON
	}
	f, decided, err = c.clientFrame(alias)
	if !decided || err != nil {
		return f, nil, decided, err
	}
	errs, decided = c.check(ClientToServer)
	return f, errs, decided, nil
}

// clientFrame reads the envelope off the parsed tree as encoding/json
// decodes it into an lmp.ClientFrame: members in order, the last of a
// repeated key winning, null leaving a field as it was (but a payload of
// null is the raw "null"), the payload's text copied as written; err where
// that decoding fails (a value that is no object, a v that is no integer,
// a type that is no string). It reports false, and lmp.Unmarshal decides,
// where lmp.Unmarshal would first drop keys (foreignKey). The payload is
// a slice of the tree's text when alias is true.
func (c *checker) clientFrame(alias bool) (f lmp.ClientFrame, decided bool, err error) {
	t := &c.t
	switch c.kind(0) {
	case kindNull:
		return f, true, nil
	case kindObject:
	default:
		return f, true, errNotObject // whatever keys it holds
	}
	if t.foreignKey() {
		return f, false, nil
	}
	var payload []byte
	for m := t.nodes[0].first; m >= 0; m = t.nodes[m].next {
		nd := &t.nodes[m]
		switch string(t.raw[nd.keyStart:nd.keyEnd]) {
		case "v":
			switch nd.kind {
			case kindNull:
			case kindNumber:
				v, perr := strconv.ParseInt(string(t.raw[nd.start:nd.end]), 10, 64)
				if perr != nil || int64(int(v)) != v { // a fraction, an exponent or out of range
					err = errVNotInt
				}
				f.V = int(v)
			default:
				err = errVNotInt
			}
		case "type":
			switch nd.kind {
			case kindNull:
			case kindString:
				f.Type = string(t.text(m, false))
			default:
				err = errTypeNotString
			}
		case "payload":
			payload = t.span(m)
		}
	}
	if err != nil {
		return f, true, err // as encoding/json, which decodes on after a value of the wrong type and then fails
	}
	switch {
	case payload == nil:
	case alias:
		f.Payload = payload
	default:
		f.Payload = append([]byte(nil), payload...) // raw is the caller's, and may be reused
	}
	return f, true, nil
}

// DecodeClientFrame's errors for a frame that is JSON but no client frame.
var (
	errNotObject     = errors.New("a client frame is a JSON object")
	errVNotInt       = errors.New("envelope v is not an integer")
	errTypeNotString = errors.New("envelope type is not a string")
)

// foreignKey reports whether a key of the tree, at any depth, may be of
// another form than an LMP field name, as lmp.Unmarshal judges it: it is
// escaped, or holds an upper-case ASCII letter or a non-ASCII byte. For such
// frames lmp.Unmarshal drops keys before decoding, and decides itself.
func (t *jtree) foreignKey() bool {
	for i := range t.nodes {
		nd := &t.nodes[i]
		if nd.keyEsc || foreign(t.raw[nd.keyStart:nd.keyEnd]) {
			return true
		}
	}
	return false
}

// foreign reports whether an unescaped key holds an upper-case ASCII
// letter or a non-ASCII byte.
func foreign(key []byte) bool {
	for _, b := range key {
		if b >= 'A' && b <= 'Z' || b >= 0x80 {
			return true
		}
	}
	return false
}

// RequestIDOf returns a client payload's request_id as encoding/json
// gives it when it decodes payload into a struct with a field of type any
// tagged request_id, and that field holds a string: the last member named
// so, if it is a string; "" otherwise, and for a payload that is not an
// object or not JSON. A server names the request of a frame it refuses
// with it (the request_id of an error answering an invalid payload).
//
// It reads the payload with the compiled validator's parse. Where that
// parse and encoding/json could read the keys differently (a key with an
// escape, an upper-case letter or a non-ASCII byte: encoding/json matches
// keys without regard to case), or the payload is not one the parse
// models, encoding/json decides.
func RequestIDOf(payload []byte) string {
	if len(payload) <= MaxClientBytes && utf8.Valid(payload) {
		c := checkers.Get().(*checker)
		id, decided := c.requestID(payload)
		c.release()
		if decided {
			return id
		}
	}
	var p struct {
		RequestID any `json:"request_id"`
	}
	_ = json.Unmarshal(payload, &p)
	id, _ := p.RequestID.(string)
	return id
}

// requestID is RequestIDOf from one parse, or decided false where
// encoding/json must decide.
func (c *checker) requestID(payload []byte) (id string, decided bool) {
	t := &c.t
	if !t.parse(payload) {
		// Not JSON: encoding/json fails before it decodes anything.
		return "", t.modelled
	}
	if c.kind(0) != kindObject {
		return "", true // encoding/json refuses it whole
	}
	if t.foreignKey() {
		return "", false
	}
	return c.memberText(0, "request_id"), true
}
