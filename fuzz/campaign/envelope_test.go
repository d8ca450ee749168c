package campaign

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// serverExamples are the schema corpus's valid server frames.
func serverExamples(t testing.TB) [][]byte {
	t.Helper()
	paths, err := filepath.Glob("../../schema/examples/valid/s2c/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no server frame examples: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// envelopeCases are frames at the edges of what the scan reads itself:
// key case, duplicates, escapes, non-ASCII, null, numbers encoding/json
// refuses for an int64, nesting, whitespace, other top-level values.
var envelopeCases = []string{
	`{"v":1,"type":"pong","seq":0,"event_id":"e_0","payload":{}}`,
	` {"TYPE":"ping" , "Seq":7,"EVENT_ID":"e_7","PayLoad":[1,{"a":"}"}]} `,
	`{"type":"a","type":"b","seq":1,"seq":2,"payload":1,"payload":{"x":"\""}}`,
	`{"type":"p\u0069ng","seq":1}`,
	`{"type":"pïng","seq":1}`,
	`{"ſeq":5,"type":"ping"}`,
	`{"type":null,"seq":null,"event_id":null,"payload":null}`,
	`{"seq":1.0}`, `{"seq":1e3}`, `{"seq":-0}`, `{"seq":9223372036854775808}`, `{"seq":-9223372036854775808}`,
	`{"seq":"1"}`, `{"type":5}`, `{"event_id":true}`, `{"payload":"a\\\"}"}`,
	`{"type":"error","payload":{"code":"bad_frame","detail":{"deep":[[[[[[[[[[[[1]]]]]]]]]]]]}}}`,
	`{}`, `[]`, `null`, `"x"`, `1`, `{"a":{}}x`, `{"a":1,}`,
	"{\"type\":\"a\tb\"}", `{"type":"a` + "\x7f" + `b"}`, `{"ev\u0065nt_id":"e_1"}`,
}

// checkEnvelope fails t when scanEnvelope reads raw, well-formed JSON,
// differently from json.Unmarshal. It returns whether the scan read it.
func checkEnvelope(t *testing.T, raw []byte) bool {
	t.Helper()
	if !json.Valid(raw) {
		return false
	}
	var got, want wireFrame
	if !scanEnvelope(raw, &got) {
		return false
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("scan read %q, encoding/json refuses it: %v", raw, err)
	}
	if got.Type != want.Type || got.Seq != want.Seq || got.EventID != want.EventID || !bytes.Equal(got.Payload, want.Payload) {
		t.Fatalf("%q: scan read %+v, encoding/json %+v", raw, got, want)
	}
	return true
}

// TestEnvelopeScanMatchesEncodingJSON: the oracle's scan of a well-formed
// frame reads what encoding/json reads, or declines and leaves the frame
// to encoding/json. It must read the corpus's server frames itself, or it
// saves nothing.
func TestEnvelopeScanMatchesEncodingJSON(t *testing.T) {
	for _, raw := range serverExamples(t) {
		if !checkEnvelope(t, raw) {
			t.Errorf("the scan declines a valid server frame: %s", raw)
		}
		g := newGen(5, nil)
		for range 200 {
			checkEnvelope(t, g.flipBytes(raw))
			checkEnvelope(t, g.broken(raw))
		}
	}
	for _, c := range envelopeCases {
		checkEnvelope(t, []byte(c))
	}
}

// FuzzEnvelopeScan: on any well-formed JSON the scan reads the envelope as
// encoding/json does, or declines.
func FuzzEnvelopeScan(f *testing.F) {
	for _, c := range envelopeCases {
		f.Add([]byte(c))
	}
	for _, raw := range serverExamples(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkEnvelope(t, raw) })
}
