package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendStringIsWhatEncodingJSONWrites holds AppendString to
// encoding/json, with HTML escaping (json.Marshal) and without (an Encoder
// with SetEscapeHTML(false)): every byte alone, every rune of the Basic
// Multilingual Plane alone, and random strings of ASCII, runes that
// encoding/json escapes and bytes that are no UTF-8.
func TestAppendStringIsWhatEncodingJSONWrites(t *testing.T) {
	var buf bytes.Buffer
	plain := json.NewEncoder(&buf)
	plain.SetEscapeHTML(false)
	check := func(s string) {
		t.Helper()
		html, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if err := plain.Encode(s); err != nil {
			t.Fatal(err)
		}
		asIs := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		for _, tc := range []struct {
			escapeHTML bool
			want       []byte
		}{{true, html}, {false, asIs}} {
			if got := AppendString([]byte("x"), s, tc.escapeHTML); !bytes.Equal(got[1:], tc.want) || got[0] != 'x' {
				t.Fatalf("AppendString(%q, escapeHTML %v) = %s, want %s", s, tc.escapeHTML, got[1:], tc.want)
			}
		}
	}
	for b := range 256 {
		check(string([]byte{byte(b)}))
	}
	for r := range rune(0x10000) {
		check(string(r))
	}
	pieces := []string{"a", "Z", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x1f", "\x7f", "\b", "\f", "\n", "\r", "\t",
		"é", "中", "🙂", "\u2028", "\u2029", "\ufffd", "\xff", "\x80", "\xc3", "\xe4\xb8", "\xed\xa0\x80", "\xf4\x90\x80\x80"}
	rng := rand.New(rand.NewPCG(3, 25))
	for range 20000 {
		var sb []byte
		for range rng.IntN(12) {
			sb = append(sb, pieces[rng.IntN(len(pieces))]...)
		}
		check(string(sb))
	}
}
