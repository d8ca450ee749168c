package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestStringEnd(t *testing.T) {
	for _, tc := range []struct {
		in      string
		end     int
		escaped bool
	}{
		{`"abc"`, 4, false},
		{`""`, 1, false},
		{`"a\"b"`, 5, true},
		{`"a\\"b"`, 4, true},
		{`"a\\\"b"`, 7, true},
		{`"\u0022"`, 7, true},
		{`"abc`, -1, false},
		{`"ab\"`, -1, true},
		{`"ab\`, -1, false}, // no quote at all: the scan stops before it looks for escapes
	} {
		end, escaped := StringEnd([]byte(tc.in), 1)
		if end != tc.end || escaped != tc.escaped {
			t.Errorf("StringEnd(%s) = %d, %v; want %d, %v", tc.in, end, escaped, tc.end, tc.escaped)
		}
	}
}

// TestUnquoteAsEncodingJSON holds Unquote to encoding/json's decoding of
// the same string, on strings built at random from the pieces where the
// two could part: escapes of every kind, surrogate pairs and lone
// surrogates in both cases of hex, bad escapes, invalid and truncated
// UTF-8, raw quotes and control characters.
func TestUnquoteAsEncodingJSON(t *testing.T) {
	pieces := []string{`a`, `é`, "\u2028", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00e9`, `\u00E9`,
		`\ud83d\ude00`, `\uD83D\uDE00`, `\ud83d`, `\ude00`, `\ud83d\u0041`, `\ud83dx`, `\u12`, `\u12g4`, `\x`, `\`,
		"\xff", "\xc3", "\xed\xa0\x80", `"`, "\x01", "\x7f", `\u0000`}
	rng := rand.New(rand.NewPCG(25, 3))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		var want string
		err := json.Unmarshal([]byte(`"`+s+`"`), &want)
		got, ok := Unquote([]byte(s))
		if ok != (err == nil) || ok && string(got) != want {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json gives %q, %v", s, got, ok, want, err)
		}
	}
}
