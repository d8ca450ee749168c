package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// sameServerEnvelope runs ReadServerFrame beside ValidateFrame and
// encoding/json: the same errors, and an envelope read only where
// encoding/json decodes the same one without error.
func sameServerEnvelope(raw []byte) (read bool, diff string) {
	env, read, errs := ReadServerFrame(raw)
	if want := ValidateFrame(ServerToClient, raw); !reflect.DeepEqual(errs, want) {
		return read, fmt.Sprintf("ReadServerFrame(%q): errors %v, ValidateFrame's %v", raw, errs, want)
	}
	if !read {
		return false, ""
	}
	var want struct {
		Type    string          `json:"type"`
		Seq     int64           `json:"seq"`
		EventID string          `json:"event_id"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		return true, fmt.Sprintf("ReadServerFrame(%q) read an envelope; encoding/json fails: %v", raw, err)
	}
	if env.Type != want.Type || env.Seq != want.Seq || env.EventID != want.EventID || !bytes.Equal(env.Payload, want.Payload) {
		return true, fmt.Sprintf("ReadServerFrame(%q) read %+v (payload %s), encoding/json %+v (payload %s)", raw, env, env.Payload, want, want.Payload)
	}
	return true, ""
}

// TestReadServerFrameOnCorpus: every example server frame the schemas pass
// is read, and read as encoding/json reads it; so are the corpus's
// mutations, read or not.
func TestReadServerFrameOnCorpus(t *testing.T) {
	for name, raw := range frameExamples(t) {
		read, diff := sameServerEnvelope(raw)
		if diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
		if !read && len(ValidateFrame(ServerToClient, raw)) == 0 {
			t.Errorf("%s: a server frame the schemas pass was not read", name)
		}
	}
	bases := mutationBases(t)
	rng := rand.New(rand.NewPCG(25, 2))
	for range 300 {
		if _, diff := sameServerEnvelope(mutate(rng, bases[rng.IntN(len(bases))])); diff != "" {
			t.Fatal(diff)
		}
	}
}

// TestReadServerFrameEdges: what encoding/json reads otherwise, or fails
// on, is left to the caller; what it reads the same is read.
func TestReadServerFrameEdges(t *testing.T) {
	const head = `{"v":1,"seq":7,"ts":1759123456.789,"task_id":null,"run_id":null,"event_id":"e_7","payload":{}`
	for _, tc := range []struct {
		raw  string
		read bool
	}{
		{head + `,"type":"pong"}`, true},
		{head + `,"type":"pong","TYPE":"ping"}`, true},               // the last, whatever its case
		{head + `,"TYPE":5,"type":"pong"}`, false},                   // encoding/json fails on the first
		{head + `,"type":"pong","\u0074ype":"ping"}`, false},         // an escaped key
		{head + `,"type":"pong","ſeq":8}`, false},                    // folds to seq in encoding/json
		{head + `,"type":"p\u006fng"}`, true},                        // an escaped value
		{head + `,"type":"pong","Seq":null,"event_ID":"e_7"}`, true}, // null leaves seq as it was
	} {
		read, diff := sameServerEnvelope([]byte(tc.raw))
		if diff != "" {
			t.Error(diff)
		}
		if read != tc.read && len(ValidateFrame(ServerToClient, []byte(tc.raw))) == 0 {
			t.Errorf("%s: read %v, want %v", tc.raw, read, tc.read)
		}
	}
}
