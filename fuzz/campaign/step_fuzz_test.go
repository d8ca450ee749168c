package campaign

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzEpisodeRoundTrip checks that a reproducer keeps every byte of every
// frame through its JSON file, whatever the bytes (invalid UTF-8, NUL,
// placeholders), and that loading arbitrary reproducer JSON never panics.
func FuzzEpisodeRoundTrip(f *testing.F) {
	f.Add([]byte(`{"v":1}`), false, []byte(`{"kind":"x","steps":[{"op":"text","data":"a"}]}`))
	f.Add([]byte("\xff\xfe{{credential}}"), true, []byte(`{"steps":[{"op":"binary","b64":"AAE="}]}`))
	f.Add([]byte{}, false, []byte(`{"steps":[{"op":"nope"}]}`))
	f.Fuzz(func(t *testing.T, data []byte, binary bool, file []byte) {
		op := OpText
		if binary {
			op = OpBinary
		}
		in := Episode{Kind: "k", Steps: []Step{{Op: op, Data: data}}}
		raw, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out Episode
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Steps) != 1 || out.Steps[0].Op != op || !bytes.Equal(out.Steps[0].Data, data) {
			t.Fatalf("%q became %+v", data, out.Steps)
		}
		var any Episode
		_ = json.Unmarshal(file, &any)
	})
}
