package schema

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The compiled validator (validate_gen.go) must give exactly the reference's
// errors, the schemas interpreted by jsonschema/v5: the same verdict, and
// the same frame names, pointers, rules and messages in the same order.

// sameAsReference compares the two forms on raw in direction dir. It
// reports whether the compiled form decided (rather than leaving raw to
// the reference) and a description of the first disagreement, if any.
func sameAsReference(dir Direction, raw []byte) (decided bool, diff string) {
	got, ok := compiledValidateFrame(dir, raw)
	if !ok {
		return false, ""
	}
	want := referenceValidateFrame(dir, raw)
	if reflect.DeepEqual(got, want) {
		return true, ""
	}
	return true, fmt.Sprintf("%s frame %q:\ncompiled:  %v\nreference: %v", dir, raw, got, want)
}

// refusedBeforeSchemas reports whether the reference refuses raw while
// decoding it (T-3), before any schema applies.
func refusedBeforeSchemas(dir Direction, raw []byte) bool {
	errs := referenceValidateFrame(dir, raw)
	for _, e := range errs {
		if e.Rule != ruleJSON {
			return false
		}
	}
	return len(errs) > 0
}

// frameExamples are the corpus's frames, valid and invalid, by direction.
func frameExamples(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, kind := range []string{"valid", "invalid"} {
		for _, p := range corpus(t, kind) {
			if strings.HasPrefix(p, "s2c/") || strings.HasPrefix(p, "c2s/") {
				out[kind+"/"+p] = readExample(t, kind, p)
			}
		}
	}
	return out
}

// TestCompiledMatchesReferenceOnCorpus: every frame of the example corpus,
// judged in both directions, gets the same errors from both forms, and the
// compiled form decides every one of them that the reference does not
// refuse before the schemas (T-3: not UTF-8 JSON, too deep, numbers beyond
// float64), so it is not the reference in disguise.
func TestCompiledMatchesReferenceOnCorpus(t *testing.T) {
	for name, raw := range frameExamples(t) {
		for _, dir := range []Direction{ServerToClient, ClientToServer} {
			decided, diff := sameAsReference(dir, raw)
			if diff != "" {
				t.Errorf("%s: %s", name, diff)
			}
			if !decided && !refusedBeforeSchemas(dir, raw) {
				t.Errorf("%s (%s): the compiled form left a frame to the reference", name, dir)
			}
		}
	}
}

// TestCompiledMatchesReferenceOnMutations runs both forms over frames made
// from the corpus by a fixed sequence of structural mutations (a value
// replaced by one of another type, a field dropped or repeated, a string
// lengthened past its limit, …): cheap enough for every test run, while
// FuzzCompiledMatchesReference explores further.
func TestCompiledMatchesReferenceOnMutations(t *testing.T) {
	bases := mutationBases(t)
	rng := rand.New(rand.NewPCG(25, 1))
	decided := 0
	const n = 200
	for range n {
		raw := mutate(rng, bases[rng.IntN(len(bases))])
		for _, dir := range []Direction{ServerToClient, ClientToServer} {
			ok, diff := sameAsReference(dir, raw)
			if diff != "" {
				t.Fatal(diff)
			}
			if ok {
				decided++
			}
		}
	}
	// Mutations that break JSON are few: nearly all frames must be decided
	// by the compiled form, or this test compares nothing.
	if decided < n {
		t.Fatalf("the compiled form decided only %d of %d mutated frames", decided, 2*n)
	}
}

// FuzzCompiledMatchesReference runs both forms side by side and fails on
// the first disagreement, DecodeClientFrame beside lmp.Unmarshal and
// ValidateFrame (sameAsSeparate), and ReadServerFrame beside ValidateFrame
// and encoding/json (sameServerEnvelope). Each input is judged as it is (random bytes,
// mutated by the fuzz engine) and, read as a recipe (which corpus frame,
// which mutations where), as a structural mutation of a corpus frame, so
// that most inputs are JSON frames that reach the schemas rather than
// syntax errors.
func FuzzCompiledMatchesReference(f *testing.F) {
	bases := mutationBases(f)
	for _, raw := range frameExamples(f) {
		f.Add(raw)
	}
	f.Add([]byte(`{"v":1.0,"type":"ping","payload":{}}`))
	f.Add([]byte(`{"v":1,"seq":-0,"ts":-0.0,"type":"pong","task_id":null,"run_id":null,"event_id":"e_-0","payload":{}}`))
	f.Add([]byte(`{"v":1,"type":"hel\u006co","payload":{"protocol_version":1,"device_info":{},"device_info":[]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, dir := range []Direction{ServerToClient, ClientToServer} {
			if _, diff := sameAsReference(dir, in); diff != "" {
				t.Fatal(diff)
			}
		}
		if _, diff := sameAsSeparate(in); diff != "" {
			t.Fatal(diff)
		}
		if _, diff := sameServerEnvelope(in); diff != "" {
			t.Fatal(diff)
		}
		// The input's bytes are the mutation's choices, read in order, so
		// that the engine's minimiser, shortening an input, keeps the
		// choices before the cut.
		rng := rand.New(&recipe{in: in, rest: *rand.NewPCG(25, uint64(len(in)))})
		raw := mutate(rng, bases[rng.IntN(len(bases))])
		for _, dir := range []Direction{ServerToClient, ClientToServer} {
			if _, diff := sameAsReference(dir, raw); diff != "" {
				t.Fatal(diff)
			}
		}
		if _, diff := sameAsSeparate(raw); diff != "" {
			t.Fatal(diff)
		}
		if _, diff := sameServerEnvelope(raw); diff != "" {
			t.Fatal(diff)
		}
	})
}

// recipe is a rand.Source that reads its numbers from a fuzz input, eight
// bytes at a time, and from a fixed PCG stream once the input is used up
// (a source of zeros would make rand.IntN retry forever).
type recipe struct {
	in   []byte
	rest rand.PCG
}

func (r *recipe) Uint64() uint64 {
	if len(r.in) < 8 {
		return r.rest.Uint64()
	}
	v := binary.BigEndian.Uint64(r.in)
	r.in = r.in[8:]
	return v
}

// mutationBases are the corpus frames that are JSON objects, decoded.
func mutationBases(t testing.TB) []map[string]any {
	var out []map[string]any
	names := make([]string, 0)
	ex := frameExamples(t)
	for name := range ex {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		var m map[string]any
		if json.Unmarshal(ex[name], &m) == nil {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		t.Fatal("no JSON frames in the corpus")
	}
	return out
}

// mutate copies base and applies one to four structural mutations at
// random places, then encodes it. Some encodings are written by hand to
// reach what encoding/json never writes: repeated keys, escaped keys,
// integral numbers with a fraction, exponents, -0.
func mutate(rng *rand.Rand, base map[string]any) []byte {
	v := deepCopy(base)
	for range 1 + rng.IntN(4) {
		v = mutateAt(rng, v, 0)
	}
	var b strings.Builder
	encodeOdd(rng, &b, v)
	return []byte(b.String())
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// oddNumber is a number literal written as is.
type oddNumber string

// repeated is a member written twice: first a decoy, then the real value.
type repeated struct{ decoy, value any }

var fieldNames = []string{"v", "type", "payload", "seq", "ts", "task_id", "run_id", "event_id",
	"run_id", "text", "kind", "iteration", "request_id", "approval_id", "choice", "token",
	"device_id", "credential", "device_info", "model", "os", "app_version", "protocol_version",
	"last_seq", "limit", "status_filter", "tasks", "code", "message", "fatal", "supported_versions",
	"error", "status", "duration", "index", "ok", "tool", "call_id", "choices", "x"}

var frameTypes = []string{"hello", "ping", "pong", "session.send", "run.cancel", "run.pause", "run.resume",
	"approval.resolve", "task.list", "hello.ok", "ack", "error", "run.delta", "run.started", "run.completed",
	"run.failed", "run.tool_started", "run.tool_finished", "approval.required", "approval.resolved",
	"notification", "task.list.result", "run.interim", "device.battery"}

func randomValue(rng *rand.Rand, depth int) any {
	switch rng.IntN(15) {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return json.Number(fmt.Sprint(rng.IntN(5) - 1))
	case 3:
		return oddNumber([]string{"1.0", "0.0", "-0.0", "-0", "1e3", "2.5", "-1", "9007199254740991", "9007199254740992",
			"-9007199254740993", "1E0", "0.000001", "-0.0000001", "123456789012345678", "1.5e300", "4e-5"}[rng.IntN(16)])
	case 4:
		return frameTypes[rng.IntN(len(frameTypes))]
	case 5:
		return strings.Repeat("é", 120+rng.IntN(20)) // around the 128-character limits
	case 6:
		return strings.Repeat("x", 250+rng.IntN(10))
	case 7:
		return fmt.Sprintf("e_%d", rng.IntN(3))
	case 8:
		return []string{"once", "session", "always", "deny", "text", "reasoning", "live", "ended", "all", "", "e_-0", "é\n\u2028<&>"}[rng.IntN(12)]
	case 9:
		if depth > 3 {
			return "deep"
		}
		s := make([]any, rng.IntN(3))
		for i := range s {
			s[i] = randomValue(rng, depth+1)
		}
		return s
	case 10:
		if depth > 3 {
			return nil
		}
		m := map[string]any{}
		for range rng.IntN(4) {
			m[fieldNames[rng.IntN(len(fieldNames))]] = randomValue(rng, depth+1)
		}
		return m
	case 11:
		return repeated{randomValue(rng, depth+1), randomValue(rng, depth+1)}
	case 12:
		if rng.IntN(4) == 0 { // around the 65,536-character limits, rarely: they are slow to check by reference
			return strings.Repeat("y", 65530+rng.IntN(10))
		}
		return strings.Repeat("y", 1+rng.IntN(3))
	case 13:
		// Nesting around MaxDepth, and rarely around encoding/json's own
		// limit, counted from where the value sits (one to six levels in).
		levels := MaxDepth - 6 + rng.IntN(8)
		if rng.IntN(8) == 0 {
			levels = maxJSONDepth - 6 + rng.IntN(8)
		}
		return deepNest{levels: levels, object: rng.IntN(2) == 0, inner: randomValue(rng, depth+1)}
	}
	return json.Number("1")
}

// deepNest is inner inside levels arrays, or objects of one member "a".
type deepNest struct {
	levels int
	object bool
	inner  any
}

// mutateAt applies one mutation somewhere inside v and returns the result.
func mutateAt(rng *rand.Rand, v any, depth int) any {
	switch c := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(c))
		for k := range c {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		switch op := rng.IntN(6); {
		case op == 0 && len(keys) > 0:
			delete(c, keys[rng.IntN(len(keys))])
		case op == 1:
			c[fieldNames[rng.IntN(len(fieldNames))]] = randomValue(rng, depth)
		case op == 2 && len(keys) > 0:
			k := keys[rng.IntN(len(keys))]
			c[k] = repeated{randomValue(rng, depth), c[k]}
		case len(keys) > 0 && depth < 4:
			k := keys[rng.IntN(len(keys))]
			c[k] = mutateAt(rng, c[k], depth+1)
		default:
			c[fieldNames[rng.IntN(len(fieldNames))]] = randomValue(rng, depth)
		}
		return c
	case []any:
		if len(c) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(c))
			c[i] = mutateAt(rng, c[i], depth+1)
			return c
		}
		return append(c, randomValue(rng, depth))
	}
	return randomValue(rng, depth)
}

// encodeOdd writes v as JSON, sometimes escaping a key's letters.
func encodeOdd(rng *rand.Rand, b *strings.Builder, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		first := true
		member := func(k string, e any) {
			if !first {
				b.WriteByte(',')
			}
			first = false
			if rng.IntN(20) == 0 && k != "" {
				fmt.Fprintf(b, `"\u%04x%s":`, k[0], k[1:])
			} else {
				kb, _ := json.Marshal(k)
				b.Write(kb)
				b.WriteByte(':')
			}
			encodeOdd(rng, b, e)
		}
		for _, k := range keys {
			if r, ok := v[k].(repeated); ok {
				member(k, r.decoy)
				member(k, r.value)
				continue
			}
			member(k, v[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeOdd(rng, b, e)
		}
		b.WriteByte(']')
	case repeated:
		encodeOdd(rng, b, v.value)
	case deepNest:
		open, close := "[", "]"
		if v.object {
			open, close = `{"a":`, "}"
		}
		b.WriteString(strings.Repeat(open, v.levels))
		encodeOdd(rng, b, v.inner)
		b.WriteString(strings.Repeat(close, v.levels))
	case oddNumber:
		b.WriteString(string(v))
	default:
		raw, _ := json.Marshal(v)
		b.Write(raw)
	}
}

// TestRunesOfEscapedStrings: runes counts an escaped string's characters
// without unescaping it, as maxLength counts the unescaped value.
func TestRunesOfEscapedStrings(t *testing.T) {
	for _, s := range []string{`"plain"`, `"é\n\"x"`, `"\u00e9\u2028\\\/"`, `"\t"`, `"` + strings.Repeat(`a\u0041é\\`, 50) + `"`} {
		var tr jtree
		if !tr.parse([]byte(s)) {
			t.Fatalf("%s does not parse", s)
		}
		c := &checker{t: tr}
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		if got := c.runes(0); got != len([]rune(want)) {
			t.Errorf("runes(%s) = %d, want %d", s, got, len([]rune(want)))
		}
	}
}
