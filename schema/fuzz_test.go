package schema

import (
	"strings"
	"testing"
)

// FuzzValidateFrame attacks the validator with arbitrary bytes in both
// directions. It must never panic, and every error must be well formed: one
// line, a pointer, a rule, and no internal failure.
func FuzzValidateFrame(f *testing.F) {
	for _, kind := range []string{"valid", "invalid"} {
		for _, p := range corpus(f, kind) {
			if strings.HasPrefix(p, "s2c/") || strings.HasPrefix(p, "c2s/") {
				f.Add(p[:3] == "s2c", readExample(f, kind, p))
			}
		}
	}
	f.Add(true, []byte(`{"v":1e400}`))
	f.Add(false, []byte("\xff\xfe"))
	f.Add(true, []byte(strings.Repeat("[", 10000)))
	f.Add(true, []byte(`{"v":1,"seq":-0.0,"ts":0.0,"type":"ping","task_id":null,"run_id":null,"event_id":"e_0","payload":{}}`))
	f.Fuzz(func(t *testing.T, s2c bool, raw []byte) {
		dir := ClientToServer
		if s2c {
			dir = ServerToClient
		}
		for _, e := range ValidateFrame(dir, raw) {
			if strings.Contains(e.Message, "internal validator failure") {
				t.Fatalf("validator failed inside: %s", e)
			}
			if e.Rule == "" || e.Message == "" || e.Frame == "" {
				t.Fatalf("incomplete error: %#v", e)
			}
			if e.Pointer != "" && e.Pointer[0] != '/' {
				t.Fatalf("pointer %q is not a JSON pointer", e.Pointer)
			}
			if strings.ContainsAny(e.String(), "\r\n") {
				t.Fatalf("error spans lines: %q", e.String())
			}
		}
	})
}

// BenchmarkValidateFrame compares the compiled form (ValidateFrame) with
// the reference (the schemas interpreted by jsonschema/v5) on the same
// frames, in one run: a valid and an invalid frame of each direction.
// docs/performance.md records the ratios.
func BenchmarkValidateFrame(b *testing.B) {
	frames := []struct {
		name string
		dir  Direction
		raw  []byte
	}{
		{"s2c-valid", ServerToClient, readExample(b, "valid", "s2c/run.delta.json")},
		{"s2c-invalid", ServerToClient, readExample(b, "invalid", "s2c/run.delta.enum-kind.json")},
		{"c2s-valid", ClientToServer, readExample(b, "valid", "c2s/session.send.json")},
		{"c2s-invalid", ClientToServer, readExample(b, "invalid", "c2s/approval.resolve.enum-choice.json")},
	}
	// decode-only is the frame decoded into maps by encoding/json (what
	// the reference does before the schemas apply) and nothing checked:
	// the least any validator over decoded maps, generated or not, would
	// cost; it verdicts nothing, so its verdict is not checked.
	decodeOnly := func(dir Direction, raw []byte) []Error {
		limit := MaxBytes
		if dir == ClientToServer {
			limit = MaxClientBytes
		}
		decode(raw, limit)
		return nil
	}
	forms := []struct {
		name     string
		validate func(Direction, []byte) []Error
	}{{"compiled", ValidateFrame}, {"reference", referenceValidateFrame}, {"decode-only", decodeOnly}}
	for _, f := range frames {
		for _, form := range forms {
			b.Run(f.name+"/"+form.name, func(b *testing.B) {
				b.ReportAllocs()
				want := strings.HasSuffix(f.name, "-valid")
				for b.Loop() {
					if (form.validate(f.dir, f.raw) == nil) != want && form.name != "decode-only" {
						b.Fatal("wrong verdict")
					}
				}
			})
		}
	}
}
