package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// DecodeClientFrame must be lmp.Unmarshal into an lmp.ClientFrame followed,
// when that succeeds, by ValidateFrame: the same frame (v, type, payload
// byte for byte), an error exactly when lmp.Unmarshal fails, the same
// validation errors.

// sameAsSeparate compares DecodeClientFrame with the two steps it replaces
// on raw, and reports whether the single parse decided (rather than
// leaving raw to lmp.Unmarshal) and the first disagreement, if any.
func sameAsSeparate(raw []byte) (decided bool, diff string) {
	if len(raw) <= MaxClientBytes && utf8.Valid(raw) {
		c := checkers.Get().(*checker)
		_, _, decided, _ = c.decodeClientFrame(raw, false)
		c.release()
	}
	gotFrame, gotErrs, gotErr := DecodeClientFrame(raw)
	var wantFrame lmp.ClientFrame
	wantErr := lmp.Unmarshal(raw, &wantFrame)
	var wantErrs []Error
	if wantErr == nil {
		wantErrs = ValidateFrame(ClientToServer, raw)
	}
	switch {
	case (gotErr == nil) != (wantErr == nil):
		diff = fmt.Sprintf("error %v, lmp.Unmarshal's %v", gotErr, wantErr)
	case wantErr != nil:
		// The frame is refused either way; what was decoded of it is not used.
	case gotFrame.V != wantFrame.V || gotFrame.Type != wantFrame.Type || string(gotFrame.Payload) != string(wantFrame.Payload) ||
		(gotFrame.Payload == nil) != (wantFrame.Payload == nil):
		diff = fmt.Sprintf("frame %+v (payload %q), lmp.Unmarshal's %+v (payload %q)", gotFrame, gotFrame.Payload, wantFrame, wantFrame.Payload)
	case !reflect.DeepEqual(gotErrs, wantErrs):
		diff = fmt.Sprintf("errors %v, ValidateFrame's %v", gotErrs, wantErrs)
	}
	if diff != "" {
		return decided, fmt.Sprintf("DecodeClientFrame(%q): %s", raw, diff)
	}
	// ReadRequest reads the same, whatever its payload shares, and its
	// typed payload is lmp.DecodeClientPayload's.
	r, rerr := ReadRequest(raw)
	af := r.Frame
	if (rerr == nil) != (gotErr == nil) || !reflect.DeepEqual(r.Errs, gotErrs) || af.V != gotFrame.V || af.Type != gotFrame.Type ||
		string(af.Payload) != string(gotFrame.Payload) || (af.Payload == nil) != (gotFrame.Payload == nil) {
		return decided, fmt.Sprintf("ReadRequest(%q) = %+v (payload %q), %v, %v; DecodeClientFrame's %+v (payload %q), %v, %v",
			raw, af, af.Payload, r.Errs, rerr, gotFrame, gotFrame.Payload, gotErrs, gotErr)
	}
	if rerr == nil {
		if got, want := r.RequestID(), referenceRequestID(wantFrame.Payload); got != want {
			return decided, fmt.Sprintf("ReadRequest(%q).RequestID() = %q, encoding/json's %q", raw, got, want)
		}
		got, gotPErr := r.Payload()
		want, wantPErr := lmp.DecodeClientPayload(wantFrame)
		if (gotPErr == nil) != (wantPErr == nil) || gotPErr != nil && gotPErr.Error() != wantPErr.Error() || !reflect.DeepEqual(got, want) {
			return decided, fmt.Sprintf("ReadRequest(%q).Payload() = %#v, %v; lmp.DecodeClientPayload's %#v, %v", raw, got, gotPErr, want, wantPErr)
		}
	}
	// The typed payload off the tree, whatever the schemas say.
	if _, diff := treePayloadAsReference(raw); diff != "" {
		return decided, diff
	}
	// The request_id a refusal names: from the frame's payload, and from
	// the input read as a payload itself.
	for _, p := range [][]byte{gotFrame.Payload, raw} {
		if got, want := RequestIDOf(p), referenceRequestID(p); got != want {
			return decided, fmt.Sprintf("RequestIDOf(%q) = %q, encoding/json's %q", p, got, want)
		}
	}
	return decided, ""
}

// referenceRequestID is what RequestIDOf must return: encoding/json's
// reading of the payload into a field of type any tagged request_id.
func referenceRequestID(payload []byte) string {
	var p struct {
		RequestID any `json:"request_id"`
	}
	_ = json.Unmarshal(payload, &p)
	id, _ := p.RequestID.(string)
	return id
}

// TestRequestIDOfEdges holds RequestIDOf to encoding/json where the one
// parse and encoding/json could part.
func TestRequestIDOfEdges(t *testing.T) {
	for _, tc := range []struct{ payload, want string }{
		{`{"request_id":"r1"}`, "r1"},
		{`{"request_id":"r1","request_id":"r2"}`, "r2"},
		{`{"request_id":"r1","request_id":7}`, ""},
		{`{"request_id":"r1","request_id":null}`, ""},
		{`{"REQUEST_ID":"up"}`, "up"},                   // encoding/json ignores case
		{`{"request_id":"r1","Request_Id":"up"}`, "up"}, // the last match, in any case
		{`{"request\u005fid":"esc"}`, "esc"},
		{`{"request_id":"a\nb\u00e9"}`, "a\nbé"},
		{`{"request_id":"\ud800"}`, "\ufffd"},
		{`{"x":{"request_id":"nested"}}`, ""},
		{`["request_id","r1"]`, ""},
		{`"r1"`, ""},
		{`{"request_id":"r1"`, ""},
		{`{"request_id":"r1"} {}`, ""},
		{"{\"request_id\":\"\xff\"}", "\ufffd"},
		{``, ""},
	} {
		payload := []byte(tc.payload)
		want := referenceRequestID(payload)
		if want != tc.want {
			t.Fatalf("the case %q expects %q, but encoding/json gives %q", tc.payload, tc.want, want)
		}
		if got := RequestIDOf(payload); got != want {
			t.Errorf("RequestIDOf(%q) = %q, want %q", tc.payload, got, want)
		}
	}
	// The one parse decides the payloads of LMP's own keys, or it saves
	// nothing.
	for _, p := range []string{`{"request_id":"r1","limit":"x"}`, `{"request_id":"r1","request_id":7}`, `[1]`, `{"a":`} {
		c := checkers.Get().(*checker)
		_, decided := c.requestID([]byte(p))
		c.release()
		if !decided {
			t.Errorf("RequestIDOf(%q) was left to encoding/json", p)
		}
	}
}

// TestDecodeClientFrameEdges holds the single parse to encoding/json where
// the two could part: repeated keys, null, numbers that are no int, keys
// lmp.Unmarshal drops, payloads of every kind and their whitespace. Each
// frame says whether the single parse decides it or must leave it to
// lmp.Unmarshal, so that the fast path is known to be taken.
func TestDecodeClientFrameEdges(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		decided bool
	}{
		{`{"v":1,"type":"ping","payload":{}}`, true},
		{` { "v" : 1 , "type" : "session.send" , "payload" : { "text" : "a\"b" , "request_id" : "r" } } `, true},
		{`{"v":1,"type":"ping","payload":{},"v":2,"type":"pong","payload":[1, 2]}`, true},
		{`{"v":1,"type":"ping","payload":null}`, true},
		{`{"v":null,"type":null,"payload":{}}`, true},
		{`{"v":1,"v":null,"type":"ping","type":null}`, true},
		{`null`, true},
		{`{}`, true},
		{`{"payload":"text","type":"x"}`, true},
		{`{"payload":true,"type":"x","v":-0}`, true},
		{`{"payload":-1.5e3,"type":"x\u00e9\n","v":0}`, true},
		{`{"v":1,"type":"ping","payload":{"a":[{"b":{}}]},"other":[1,{"c":null}]}`, true},
		{`{"v":1.0,"type":"ping","payload":{}}`, true},
		{`{"v":1e0,"type":"ping","payload":{}}`, true},
		{`{"v":"1","type":"ping","payload":{}}`, true},
		{`{"v":99999999999999999999,"type":"ping","payload":{}}`, false},
		{`{"v":9999999999999999991,"type":"ping","payload":{}}`, false},
		{`{"v":-99999999999999999,"type":"ping","payload":{}}`, true},
		{`{"v":1,"type":5,"payload":{}}`, true},
		{`{"v":1,"type":["ping"],"payload":{}}`, true},
		{`{"v":1,"type":"ping","payload":{},"type":{}}`, true},
		{`{"V":2,"v":1,"type":"ping","payload":{}}`, false},
		{`{"v":1,"TYPE":"pong","type":"ping","payload":{}}`, false},
		{`{"\u0076":1,"type":"ping","payload":{}}`, false},
		{`{"v":1,"type":"ping","payload":{"Text":"x","text":"y"}}`, false},
		{`{"v":1,"type":"ping","payload":{"t\u00e9xt":"x"}}`, false},
		{`[]`, true},
		{`"frame"`, true},
		{`{"v":1,"type":"ping","payload":{}`, true},
		{`{"v":1,"type":"ping","payload":{}} {}`, true},
		{`{"v":1,"type":"ping","payload":{"a":1,}}`, true},
		{"{\"v\":1,\"type\":\"pi\x01ng\",\"payload\":{}}", true},
		{`{"v":1,"type":"pi\xng","payload":{}}`, true},
		{`{"V":1,"type":"ping","payload":{}} x`, true},
		{``, true},
		{` `, true},
		{`nul`, true},
		{`01`, true},
		{`{"A":1}}`, false},
		{`{"a":1}]`, false},
		{`null ]`, false},
		{`1 }`, false},
		{`{"v":1,"type":"ping","payload":{"a":"\ud800"}}`, false},
		{`{"v":1,"type":"ping","payload":{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`, true},
		{`{"v":1,"type":"ping","payload":{"a":1e999}}`, false},
		{`{"v":1,"type":"ping","payload":{"a":12345678901234567890}}`, false},
		{`[{"A":1}]`, true},
		{`{"v":"1","type":"ping","payload":{"A":1}}`, false},
		{"\xff", false},
	} {
		decided, diff := sameAsSeparate([]byte(tc.raw))
		if diff != "" {
			t.Error(diff)
		}
		if decided != tc.decided {
			t.Errorf("DecodeClientFrame(%q): decided by the single parse: %v, want %v", tc.raw, decided, tc.decided)
		}
	}
}

// nest returns inner inside containers that bring the frame's nesting to
// levels, the envelope and its payload being the first two: arrays, or
// objects of one member "a" when object is true.
func nest(levels int, object bool, inner string) string {
	open, close := "[", "]"
	if object {
		open, close = `{"a":`, "}"
	}
	n := levels - 2
	return `{"v":1,"type":"session.send","payload":{"deep":` + strings.Repeat(open, n) + inner + strings.Repeat(close, n) +
		`,"request_id":"r1","text":"hi"}}`
}

// TestDeepFramesAsReference holds the single parse to the reference on
// frames nested deeper than MaxDepth, which it scans without modelling:
// at the limits (MaxDepth and encoding/json's 10,000 levels), with syntax
// errors, keys and strings inside the deep part, and deep values where the
// envelope's fields are. Each frame says whether the single parse decides
// it, so that the fast path is known to be taken for what a fuzzer sends.
func TestDeepFramesAsReference(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		decided bool
	}{
		{nest(MaxDepth, false, "1"), true}, // not deep: the schemas judge it
		{nest(MaxDepth+1, false, "1"), true},
		{nest(MaxDepth+1, true, "1"), true},
		{nest(MaxDepth+1, false, ""), true},
		{nest(MaxDepth+1, false, `"]\"[\\", {"b":[]}, {}, -1.5e3, true, false, null`), true},
		{nest(100, true, `{"b":{"c":[1,2,{"d":"}"}]}}`), true},
		{nest(100, false, ` [ ] , { } , { "b" : [ 1 , "x" ] } `), true},
		{nest(maxJSONDepth, false, "1"), true},
		{nest(maxJSONDepth, true, "1"), true},
		{nest(maxJSONDepth+1, false, "1"), true},
		{nest(maxJSONDepth+1, true, "1"), true},
		{nest(20000, false, "1"), true},
		{nest(20000, true, "x"), true},
		{`{"v":1,"type":"ping","payload":` + strings.Repeat("[", 20000), true},
		{`{"Type":"ping","payload":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, true},
		{`[` + strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat("}", 10001) + `]`, true},
		{nest(100, false, `{"A":1}`), false},
		{nest(100, false, `{"\u0061":1}`), false},
		{nest(100, false, `{"é":1}`), false},
		{nest(100, false, `"\ud800"`), false},
		{nest(100, false, `12345678901234567890`), true},
		{nest(100, false, `1e999`), true}, // nothing reads a deep number
		{nest(100, false, `1,`), true},
		{nest(100, false, `tru`), true},
		{nest(100, false, `01`), true},
		{nest(100, false, "\"a\x01\""), true},
		{nest(100, false, `{"b" 1}`), true},
		{nest(100, false, `{"b":1,}`), true},
		{nest(100, false, `{"b":1]`), true},
		{nest(100, false, `]`), true},
		{`{"v":1,"type":"ping","payload":{"deep":` + strings.Repeat("[", 100), true},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), true},
		{`{"v":1,"type":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"payload":{}}`, true},
		{`{"v":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"type":"ping","payload":{}}`, true},
		{`{"v":1,"type":"ping","payload":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, true},
		{`{"v":1,"type":"ping","payload":` + strings.Repeat(`{"request_id":`, 100) + `"r"` + strings.Repeat("}", 100) + `}`, true},
		{`{"v":1,"type":"ping","payload":{}}` + strings.Repeat("[", 100), true},
		{`{"v":1,"type":"ping","payload":{},"Type":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, false},
	} {
		raw := []byte(tc.raw)
		decided, diff := sameAsSeparate(raw)
		if diff != "" {
			if len(diff) > 400 {
				diff = diff[:200] + " … " + diff[len(diff)-200:]
			}
			t.Error(diff)
		}
		if decided != tc.decided {
			t.Errorf("DecodeClientFrame(%.60q…%.60q): decided by the single parse: %v, want %v", tc.raw, tc.raw[max(0, len(tc.raw)-60):], decided, tc.decided)
		}
		for _, dir := range []Direction{ServerToClient, ClientToServer} {
			if _, diff := sameAsReference(dir, raw); diff != "" {
				t.Errorf("%.400s", diff)
			}
		}
	}
}

// TestReadRequestShares: ReadRequest's payload is the frame's own bytes,
// and DecodeClientFrame's a copy that outlives them; the typed payload
// read off the tree outlives them too.
func TestReadRequestShares(t *testing.T) {
	raw := []byte(`{"v":1,"type":"task.list","payload":{"request_id":"r1"}}`)
	r, err := ReadRequest(raw)
	if err != nil || string(r.Frame.Payload) != `{"request_id":"r1"}` {
		t.Fatalf("ReadRequest: payload %q, %v", r.Frame.Payload, err)
	}
	if !r.decoded {
		t.Fatalf("ReadRequest left the typed payload of %s to encoding/json", raw)
	}
	c, _, _ := DecodeClientFrame(raw)
	copy(raw, strings.Repeat("x", len(raw)))
	if string(r.Frame.Payload) != strings.Repeat("x", len(r.Frame.Payload)) || string(c.Payload) != `{"request_id":"r1"}` {
		t.Fatalf("after raw changed: aliased payload %q (want raw's bytes), copied %q (want the frame's)", r.Frame.Payload, c.Payload)
	}
	if p, err := r.Payload(); err != nil || p != (lmp.TaskList{RequestID: "r1"}) {
		t.Fatalf("after raw changed: typed payload %#v, %v; want the frame's", p, err)
	}

	// A hello as an app sends it: the first frame of every connection.
	hello := []byte(`{"v":1,"type":"hello","payload":{"protocol_version":1,"device_id":"dev_1","credential":"c","last_seq":7,"device_info":{"model":"Pixel 8","os":"Android 15","app_version":"1.0.0"}}}`)
	if r, err := ReadRequest(hello); err != nil || len(r.Errs) > 0 || !r.decoded {
		t.Fatalf("ReadRequest(%s): errors %v, %v; payload decoded off the tree: %v", hello, r.Errs, err, r.decoded)
	}

	// A frame the schemas refuse: its request_id is read off the tree.
	raw = []byte(`{"v":1,"type":"task.list","payload":{"request_id":"r9","limit":"ten"}}`)
	r, err = ReadRequest(raw)
	if err != nil || len(r.Errs) == 0 || !r.hasRequestID {
		t.Fatalf("ReadRequest(%s): errors %v, %v; request_id read off the tree: %v", raw, r.Errs, err, r.hasRequestID)
	}
	copy(raw, strings.Repeat("x", len(raw)))
	if id := r.RequestID(); id != "r9" {
		t.Fatalf("after raw changed: request_id %q, want r9", id)
	}
}

// TestDecodeClientFrameOnCorpus: every frame of the example corpus decodes
// and validates as the two separate steps do, and the single parse decides
// every client frame example that lmp.Unmarshal reads without dropping a
// key.
func TestDecodeClientFrameOnCorpus(t *testing.T) {
	decided := 0
	for name, raw := range frameExamples(t) {
		ok, diff := sameAsSeparate(raw)
		if diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
		if ok {
			decided++
		}
	}
	if decided < len(frameExamples(t))/2 {
		t.Fatalf("the single parse decided only %d corpus frames", decided)
	}
}

// TestDecodeClientFrameOnMutations runs both over frames made from the
// corpus by TestCompiledMatchesReferenceOnMutations' mutations; the fuzz
// target FuzzCompiledMatchesReference explores further.
func TestDecodeClientFrameOnMutations(t *testing.T) {
	bases := mutationBases(t)
	rng := rand.New(rand.NewPCG(25, 2))
	decided := 0
	const n = 300
	for range n {
		raw := mutate(rng, bases[rng.IntN(len(bases))])
		ok, diff := sameAsSeparate(raw)
		if diff != "" {
			t.Fatal(diff)
		}
		if ok {
			decided++
		}
	}
	// The mutations write many keys escaped or in upper case on purpose
	// (lmp.Unmarshal decides those), and some envelopes of the wrong type:
	// about a third of the frames are left to the single parse.
	if decided < n/4 {
		t.Fatalf("the single parse decided only %d of %d mutated frames", decided, n)
	}
}

// BenchmarkDecodeClientFrame compares DecodeClientFrame with the two steps
// it replaces (lmp.Unmarshal into an lmp.ClientFrame, then ValidateFrame),
// on the same frames in one run. docs/performance.md records the ratios.
func BenchmarkDecodeClientFrame(b *testing.B) {
	for _, fr := range []struct{ name, kind, path string }{
		{"session.send", "valid", "c2s/session.send.json"},
		{"approval.resolve-bad-enum", "invalid", "c2s/approval.resolve.enum-choice.json"},
	} {
		raw := readExample(b, fr.kind, fr.path)
		b.Run(fr.name+"/once", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := DecodeClientFrame(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fr.name+"/separate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var f lmp.ClientFrame
				if err := lmp.Unmarshal(raw, &f); err != nil {
					b.Fatal(err)
				}
				ValidateFrame(ClientToServer, raw)
			}
		})
	}
}

// BenchmarkEscapedString decodes a session.send whose text is written in
// escapes, as a fuzzer writes it: the tree's string scan and unescape.
func BenchmarkEscapedString(b *testing.B) {
	raw := []byte(`{"v":1,"type":"session.send","payload":{"request_id":"r1","text":"` + strings.Repeat(`\u00e9\u4E2D\n\"x`, 500) + `"}}`)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DecodeClientFrame(raw); err != nil {
			b.Fatal(err)
		}
	}
}
