package fuzz

import (
	"encoding/json"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

// FuzzDecodeFrame checks that package lmp and the schemas agree, in both
// directions: a frame the schemas accept decodes into its typed payload,
// and the typed payload, encoded again, is accepted by the schemas. Bad
// input never panics. (schema.FuzzValidateFrame attacks the validator
// itself.)
func FuzzDecodeFrame(f *testing.F) {
	for _, kind := range []string{"valid", "invalid"} {
		for _, raw := range examples(f, kind, "s2c") {
			f.Add(true, raw)
		}
		for _, raw := range examples(f, kind, "c2s") {
			f.Add(false, raw)
		}
	}
	f.Fuzz(func(t *testing.T, s2c bool, raw []byte) {
		if s2c {
			var fr lmp.Frame
			jsonErr := lmp.Unmarshal(raw, &fr)
			p, decErr := lmp.DecodeServerPayload(fr)
			if len(schema.ValidateFrame(schema.ServerToClient, raw)) > 0 {
				return
			}
			if jsonErr != nil || decErr != nil {
				t.Fatalf("schema-valid server frame does not decode: %v / %v\n%s", jsonErr, decErr, raw)
			}
			if p == nil {
				return // an unknown type (V-1)
			}
			again, err := lmp.NewFrame(fr.Seq, lmp.TimeOf(fr.TS), fr.TaskID, fr.RunID, p)
			if err != nil {
				t.Fatal(err)
			}
			again.TS = fr.TS
			out, _ := json.Marshal(again)
			if errs := schema.ValidateFrame(schema.ServerToClient, out); len(errs) > 0 {
				t.Fatalf("re-encoded %s breaks the schema: %s\nin:  %s\nout: %s", fr.Type, errs[0], raw, out)
			}
			return
		}
		var cf lmp.ClientFrame
		jsonErr := lmp.Unmarshal(raw, &cf)
		p, decErr := lmp.DecodeClientPayload(cf)
		if len(schema.ValidateFrame(schema.ClientToServer, raw)) > 0 {
			return
		}
		if jsonErr != nil || decErr != nil {
			t.Fatalf("schema-valid client frame does not decode: %v / %v\n%s", jsonErr, decErr, raw)
		}
		if p == nil {
			return
		}
		again, err := lmp.NewClientFrame(p)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(again)
		if errs := schema.ValidateFrame(schema.ClientToServer, out); len(errs) > 0 {
			t.Fatalf("re-encoded %s breaks the schema: %s\nin:  %s\nout: %s", cf.Type, errs[0], raw, out)
		}
	})
}
