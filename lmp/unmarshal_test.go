package lmp

import "testing"

func TestUnmarshalMatchesKeysExactly(t *testing.T) {
	cases := []struct {
		in   string
		want RunDelta
	}{
		{`{"run_id":"r","text":"Hi","kind":"text","iteration":2}`, RunDelta{RunID: "r", Text: "Hi", Kind: "text", Iteration: 2}},
		// encoding/json alone would let KIND override kind.
		{`{"run_id":"r","kind":"text","KIND":"reasoning"}`, RunDelta{RunID: "r", Kind: "text"}},
		{`{"run_id":"r","KIND":"reasoning"}`, RunDelta{RunID: "r"}},
		// Unicode folding: "ſ" folds to "s", the Kelvin sign to "k".
		{`{"run_id":"r","\u212aind":"reasoning","teſt":1,"text":"x"}`, RunDelta{RunID: "r", Text: "x"}},
		// An escaped key is the same key.
		{`{"run_id":"r","\u006bind":"reasoning"}`, RunDelta{RunID: "r", Kind: "reasoning"}},
		// Nested objects and arrays are pruned too; values are untouched.
		{`{"run_id":"R","text":"ÄBC","extra":[{"X":1}],"iteration":9007199254740993}`, RunDelta{RunID: "R", Text: "ÄBC", Iteration: 9007199254740993}},
	}
	for _, c := range cases {
		var got RunDelta
		if err := Unmarshal([]byte(c.in), &got); err != nil || got != c.want {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestUnmarshalFrameEnvelopeExactly(t *testing.T) {
	var f ClientFrame
	in := `{"v":1,"type":"ping","payload":{},"PAYLOAD":5,"Type":"hello"}`
	if err := Unmarshal([]byte(in), &f); err != nil || f.Type != TypePing || string(f.Payload) != "{}" {
		t.Fatalf("Unmarshal(%s) = %+v, %v", in, f, err)
	}
	if _, err := DecodeClientPayload(f); err != nil {
		t.Fatalf("ping payload: %v", err)
	}
}

func TestUnmarshalReportsBadJSON(t *testing.T) {
	for _, in := range []string{`{"Kind":`, `{"a":1} {"b":2}`, `[1,`, `"\x"`} {
		var v RunDelta
		if err := Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("Unmarshal(%q) accepted bad JSON", in)
		}
	}
}
