package lmp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzUnmarshalMatchesPruned holds Unmarshal's shortcut (a direct decode
// when no key can be foreign) to unmarshalByBytes, the rule it replaced
// (the pruned decode whenever any byte could belong to a foreign key): both
// give the same envelope, the same payload once decoded, the same typed
// payload and the same verdict, on any input.
func FuzzUnmarshalMatchesPruned(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"type":"ping","payload":{}}`,
		`{"v":1,"type":"session.send","payload":{"request_id":"r1","task_id":null,"text":"Hello WORLD"}}`,
		`{"v":1,"type":"ping","payload":{},"PAYLOAD":5,"Type":"hello"}`,
		`{"v":1,"typ\u0065":"ping","payload":{"a\"b":"\\"}}`,
		`{"v":1,"type":"run.cancel","payload":{"run_id":"R","Run_id":"x"}}`,
		`{"v":1,"type":"x","payload":{"teſt":1}} }`,
		`{"v":1,"type":"x","payload":{"text":"A"}}}`,
		`{"v":"1","type":"Ping","payload":[]}`,
		`{"v":1 , "type" :"ping","payload":{ "k" : "V" }}`,
		`{"Kind":`, `"\x"`, `[{"X":1}]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow ClientFrame
		errFast := Unmarshal(data, &fast)
		errSlow := unmarshalByBytes(data, &slow)
		if (errFast == nil) != (errSlow == nil) {
			t.Fatalf("%q: Unmarshal error %v, pruned decode error %v", data, errFast, errSlow)
		}
		if errFast != nil {
			return
		}
		if fast.V != slow.V || fast.Type != slow.Type {
			t.Fatalf("%q: envelope %d %q, pruned %d %q", data, fast.V, fast.Type, slow.V, slow.Type)
		}
		if !samePayload(fast.Payload, slow.Payload) {
			t.Fatalf("%q: payload %s, pruned %s", data, fast.Payload, slow.Payload)
		}
		pf, errF := DecodeClientPayload(fast)
		ps, errS := DecodeClientPayload(slow)
		if (errF == nil) != (errS == nil) || !reflect.DeepEqual(pf, ps) {
			t.Fatalf("%q: typed payload %#v (%v), pruned %#v (%v)", data, pf, errF, ps, errS)
		}
	})
}

// samePayload compares two raw payloads as the trees they decode to with
// their foreign keys dropped, or byte for byte when they do not decode.
func samePayload(a, b json.RawMessage) bool {
	tree := func(raw json.RawMessage) (any, bool) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil, false
		}
		return dropForeignKeys(v), true
	}
	ta, okA := tree(a)
	tb, okB := tree(b)
	if !okA || !okB {
		return okA == okB && bytes.Equal(a, b)
	}
	return reflect.DeepEqual(ta, tb)
}

// unmarshalByBytes is Unmarshal as it was: the direct decode only for text
// with no upper-case ASCII letter, non-ASCII byte or escape anywhere.
func unmarshalByBytes(data []byte, v any) error {
	if !mayHoldForeignKeys(data) {
		return json.Unmarshal(data, v)
	}
	return unmarshalPruned(data, v)
}
