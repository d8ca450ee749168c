package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Direction says who sent a frame.
type Direction string

// The two directions of the /ws channel.
const (
	ServerToClient Direction = "s2c"
	ClientToServer Direction = "c2s"
)

var knownTypes = map[Direction]map[string]bool{
	ServerToClient: set(lmp.ServerTypes),
	ClientToServer: set(lmp.ClientTypes),
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// ValidateFrame validates one WebSocket frame sent in direction dir and
// returns nil when it is valid. The schema is picked by the frame's type:
// dir/<type> for a known type, the direction's envelope alone for an unknown
// one, which is valid with a valid envelope (V-1). Server frames also get
// the one cross-field check JSON Schema cannot express: event_id must name
// the frame's own seq (E-3). It never panics, whatever raw holds.
//
// Frames are checked by Go code generated from the schemas (compiled.go);
// the few inputs that code leaves undecided (not JSON, not UTF-8, numbers
// at the edges of float64) go to the reference validator, the schemas
// interpreted by jsonschema/v5, and both give the same errors.
func ValidateFrame(dir Direction, raw []byte) []Error {
	if errs, ok := compiledValidateFrame(dir, raw); ok {
		return errs
	}
	return referenceValidateFrame(dir, raw)
}

// referenceValidateFrame is ValidateFrame by the schemas themselves: the
// frame decoded into maps and validated by jsonschema/v5.
func referenceValidateFrame(dir Direction, raw []byte) []Error {
	known, ok := knownTypes[dir]
	if !ok {
		return []Error{{Frame: "frame", Message: fmt.Sprintf("unknown direction %q (want s2c or c2s)", string(dir))}}
	}
	frame := "frame"
	limit := MaxBytes
	if dir == ClientToServer {
		limit = MaxClientBytes
	}
	in, probs := decode(raw, limit)
	if probs != nil {
		if in != nil {
			frame = frameName(known, in.value)
		}
		return problemErrors(frame, probs)
	}
	frame = frameName(known, in.value)
	name := string(dir) + "/envelope"
	if m, ok := in.value.(map[string]any); ok {
		if t, ok := m["type"].(string); ok && known[t] {
			name = string(dir) + "/" + t
		}
	}
	return validate(frame, name, in)
}

// ValidateDocument validates raw against the embedded schema called name:
// "http/qr", "http/pair-response", "http/health", "driver/profile", or any
// other of Names(), frame schemas included. It returns nil when raw is
// valid.
func ValidateDocument(name string, raw []byte) []Error {
	in, probs := decode(raw, MaxBytes)
	if probs != nil {
		return problemErrors(name, probs)
	}
	return validate(name, name, in)
}

func frameName(known map[string]bool, v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "frame"
	}
	t, ok := m["type"].(string)
	switch {
	case !ok:
		return "frame"
	case known[t]:
		return t
	default:
		return fmt.Sprintf("%.40q", t) // an unknown type, quoted: it is untrusted text
	}
}

func problemErrors(frame string, probs []problem) []Error {
	errs := make([]Error, len(probs))
	for i, p := range probs {
		errs[i] = Error{Frame: frame, Pointer: p.pointer, Rule: ruleJSON, Message: p.message}
	}
	return errs
}

// validate runs the compiled schema called name over in. A panic inside the
// schema library becomes an error: a validator that runs on every frame of a
// server must not take it down.
func validate(frame, name string, in *instance) (errs []Error) {
	defer func() {
		if p := recover(); p != nil {
			errs = []Error{{Frame: frame, Message: fmt.Sprintf("internal validator failure: %v", p)}}
		}
	}()
	r, err := load()
	if err != nil {
		return []Error{{Frame: frame, Message: err.Error()}}
	}
	s, ok := r.byName[name]
	if !ok {
		return []Error{{Frame: frame, Message: fmt.Sprintf("no schema named %q", name)}}
	}
	if err := s.Validate(in.value); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []Error{{Frame: frame, Message: err.Error()}}
		}
		errs = r.convert(frame, r.ids[name], ve, in)
	}
	if strings.HasPrefix(name, "s2c/") {
		errs = append(errs, checkEventID(frame, in.value, errs)...)
	}
	return tidy(errs)
}

// checkEventID is E-3's cross-field half: the pattern e_<digits> is in the
// schema, but that the digits are the frame's own seq is not expressible
// there. It is skipped when seq or event_id already has an error.
func checkEventID(frame string, v any, errs []Error) []Error {
	for _, e := range errs {
		if e.Pointer == "/seq" || e.Pointer == "/event_id" || e.Pointer == "" {
			return nil
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	seq, ok1 := m["seq"].(json.Number)
	id, ok2 := m["event_id"].(string)
	if !ok1 || !ok2 || strings.ContainsAny(string(seq), ".eE") {
		return nil
	}
	if want := "e_" + string(seq); id != want {
		// E-3: event_id is "e_<seq>" of this very frame.
		return []Error{{Frame: frame, Pointer: "/event_id", Rule: "E-3", Message: fmt.Sprintf("must be %q, naming the frame's seq", want)}}
	}
	return nil
}

// convert flattens the library's error tree into one Error per failing
// keyword, with a rule and a message of our own.
func (r *registry) convert(frame, rootID string, ve *jsonschema.ValidationError, in *instance) []Error {
	var errs []Error
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		rule, holder := r.ruleAt(rootID, e.KeywordLocation)
		toks := splitPointer(e.KeywordLocation)
		keyword := ""
		if len(toks) > 0 {
			keyword = toks[len(toks)-1]
		}
		inst, _ := lookup(in.value, e.InstanceLocation)
		if keyword == "required" {
			for _, name := range missing(holder, inst) {
				errs = append(errs, Error{Frame: frame, Pointer: e.InstanceLocation + "/" + escapeToken(name), Rule: rule,
					Message: fmt.Sprintf("required field %q is missing", name)})
			}
			return
		}
		errs = append(errs, Error{Frame: frame, Pointer: e.InstanceLocation, Rule: rule,
			Message: message(keyword, holder, inst, e, in.fracInts[e.InstanceLocation])})
	}
	walk(ve)
	return errs
}

// missing lists the fields of holder's "required" that inst lacks.
func missing(holder map[string]any, inst any) []string {
	obj, _ := inst.(map[string]any)
	req, _ := holder["required"].([]any)
	var out []string
	for _, r := range req {
		if name, ok := r.(string); ok {
			if _, present := obj[name]; !present {
				out = append(out, name)
			}
		}
	}
	return out
}

// message words a failure. It never quotes the instance value, which may be
// a token or credential (S-1).
func message(keyword string, holder map[string]any, inst any, e *jsonschema.ValidationError, fracInt bool) string {
	switch keyword {
	case "enum":
		vals, _ := holder["enum"].([]any)
		parts := make([]string, len(vals))
		for i, v := range vals {
			b, _ := json.Marshal(v)
			parts[i] = string(b)
		}
		return "must be one of " + strings.Join(parts, ", ")
	case "const":
		b, _ := json.Marshal(holder["const"])
		if fracInt {
			return fmt.Sprintf("must be %s, written as an integer literal", b)
		}
		return "must be " + string(b)
	case "type":
		want := typeNames(holder["type"])
		if fracInt && strings.Contains(want, "integer") {
			return "must be an integer literal, not a number written with a fraction or exponent"
		}
		return fmt.Sprintf("must be %s, not %s", want, jsonType(inst))
	case "pattern":
		return fmt.Sprintf("must match %v", holder["pattern"])
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		// The library's own message quotes the value, in float notation.
		op := map[string]string{"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[keyword]
		if bound, ok := holder[keyword].(float64); ok {
			return fmt.Sprintf("must be %s %s", op, strconv.FormatFloat(bound, 'f', -1, 64))
		}
	case "maxLength", "minLength":
		// Characters, as JSON Schema counts them, not bytes.
		if bound, ok := holder[keyword].(float64); ok {
			str, _ := inst.(string)
			word := map[string]string{"maxLength": "at most", "minLength": "at least"}[keyword]
			unit := "characters"
			if bound == 1 {
				unit = "character"
			}
			return fmt.Sprintf("must be %s %d %s, not %d", word, int(bound), unit, utf8.RuneCountInString(str))
		}
	}
	return e.Message
}

func typeNames(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		parts := make([]string, len(t))
		for i, v := range t {
			parts[i], _ = v.(string)
		}
		return strings.Join(parts, " or ")
	}
	return "?"
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "number"
		}
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// tidy drops duplicates (the same failure reached by two paths) and sorts by
// pointer, so that output is stable.
func tidy(errs []Error) []Error {
	if len(errs) == 0 {
		return nil
	}
	seen := make(map[Error]bool, len(errs))
	out := errs[:0]
	for _, e := range errs {
		e.Pointer = oneLine(e.Pointer)
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

// FrameName returns the name ValidateFrame gives raw in its errors: the
// frame's type when it is known in dir, the type quoted when it is not, and
// "frame" when raw has no string type.
func FrameName(dir Direction, raw []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "frame"
	}
	var t string
	if json.Unmarshal(m["type"], &t) != nil {
		return "frame"
	}
	return frameName(knownTypes[dir], map[string]any{"type": t})
}
