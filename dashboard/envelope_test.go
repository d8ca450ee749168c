package dashboard

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// identity is what a hello or hello.ok payload tells the log, as
// encoding/json decodes it: learn must agree with it.
type identity struct {
	DeviceID   string `json:"device_id"`
	Token      string `json:"token"`
	Credential string `json:"credential"`
}

// TestLearnAsEncodingJSON holds learn to encoding/json's reading of the
// payload into identity, on payloads built at random from the cases where
// a scan could part from it: keys in other cases or escaped, repeated
// keys, values of other types or escaped, the same keys nested deeper
// (not the payload's own), padding. The device named must be
// encoding/json's, and encoding/json's token and credential must be
// remembered; the scan may remember more, never a value that is not a
// top-level token or credential.
func TestLearnAsEncodingJSON(t *testing.T) {
	keys := []string{`"token"`, `"TOKEN"`, `"Token"`, `"to\u006ben"`, `"credential"`, `"Credential"`, `"device_id"`,
		`"DEVICE_ID"`, `"device\u005fid"`, `"pad"`, `"x"`}
	rng := rand.New(rand.NewPCG(25, 4))
	secret := func() string { return benchSecret()[:16+rng.IntN(28)] }
	for range 3000 {
		var b strings.Builder
		b.WriteByte('{')
		var strs []string // every string value written at the top level, unescaped
		for i := range rng.IntN(6) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(keys[rng.IntN(len(keys))])
			b.WriteByte(':')
			switch rng.IntN(6) {
			case 0:
				s := secret()
				strs = append(strs, s)
				b.WriteString(`"` + s + `"`)
			case 1: // escaped: the value is what it decodes to
				s := secret()
				strs = append(strs, s)
				b.WriteString(`"\u` + "00" + hexByte(s[0]) + s[1:] + `"`)
			case 2:
				b.WriteString("null")
			case 3:
				b.WriteString("42")
			case 4:
				b.WriteString(`{"token":"` + secret() + `","device_id":"nested"}`)
			case 5:
				b.WriteString(`[` + strings.Repeat(`"0",`, rng.IntN(4)) + `"0"]`)
			}
		}
		b.WriteByte('}')
		payload := b.String()
		var want identity
		_ = json.Unmarshal([]byte(payload), &want)
		l := newFrameLog()
		got := l.learn([]byte(payload))
		if got != want.DeviceID {
			t.Fatalf("learn(%s) names device %q, encoding/json %q", payload, got, want.DeviceID)
		}
		for _, s := range []string{want.Token, want.Credential} {
			if _, ok := l.secrets.replace[s]; s != "" && !ok {
				t.Fatalf("learn(%s) did not remember %q", payload, s)
			}
		}
		for s := range l.secrets.replace {
			found := false
			for _, w := range strs {
				found = found || w == s
			}
			if !found {
				t.Fatalf("learn(%s) remembered %q, no top-level string of the payload", payload, s)
			}
		}
	}
}

func hexByte(c byte) string {
	return string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])
}

// TestStringValueAsEncodingJSON: the envelope's strings read as
// encoding/json reads them where they hold an escape, and as written
// where they hold none (a malformed frame is shown as it came).
func TestStringValueAsEncodingJSON(t *testing.T) {
	for _, v := range []string{`"run.delta"`, `"run\u002edelta"`, `"a\"b"`, `"\ud83d\ude00"`, `"\ud83d"`, "\"\xff\\n\"", `"\x"`, `5`, `null`, `"`} {
		got := stringValue([]byte(v))
		var want string
		err := json.Unmarshal([]byte(v), &want)
		switch {
		case !strings.Contains(v, `\`) && len(v) >= 2 && v[0] == '"':
			if string(got) != v[1:len(v)-1] {
				t.Errorf("stringValue(%s) = %q, want it as written", v, got)
			}
		case err != nil:
			if got != nil {
				t.Errorf("stringValue(%s) = %q, want nil (encoding/json: %v)", v, got, err)
			}
		case string(got) != want:
			t.Errorf("stringValue(%s) = %q, encoding/json %q", v, got, want)
		}
	}
}
