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

func BenchmarkValidateFrame(b *testing.B) {
	valid := readExample(b, "valid", "s2c/run.delta.json")
	invalid := readExample(b, "invalid", "s2c/run.delta.enum-kind.json")
	b.Run("valid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ValidateFrame(ServerToClient, valid) != nil {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("invalid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ValidateFrame(ServerToClient, invalid) == nil {
				b.Fatal("valid")
			}
		}
	})
}
