package campaign

import (
	"bytes"
	"testing"
)

// TestFillReplacesEveryPlaceholder: each placeholder is replaced wherever
// it stands, next to another or behind a stray brace, and a frame without
// one comes back as it is, not copied.
func TestFillReplacesEveryPlaceholder(t *testing.T) {
	vals := map[string]string{PhDeviceID: "dev_1", PhCredential: "cred_{{token}}", PhToken: "pt_1"}
	for _, tc := range []struct{ in, want string }{
		{`{"v":1}`, `{"v":1}`},
		{`{"device_id":"{{device_id}}"}`, `{"device_id":"dev_1"}`},
		{`{{device_id}}{{token}}`, `dev_1pt_1`},
		{`{{{token}}}`, `{pt_1}`},
		{`{{ {{token}`, `{{ {{token}`},
		{`a{{unknown}}b{{token}}c{{`, `a{{unknown}}bpt_1c{{`},
		{`{{credential}}`, `cred_{{token}}`}, // a value is not filled itself
		{`{{to` + "\xff" + `{{token}}`, `{{to` + "\xff" + `pt_1`},
	} {
		if got := fill(nil, []byte(tc.in), vals); string(got) != tc.want {
			t.Errorf("fill(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	buf := make([]byte, 0, 64)
	if got := fill(buf, []byte(`{{token}}`), vals); string(got) != "pt_1" || &got[:1][0] != &buf[:1][0] {
		t.Errorf("fill did not write over the buffer it was given: %q", got)
	}
	in := []byte(`{"v":1,"payload":{"text":"{x}"}}`)
	if got := fill(nil, in, vals); &got[0] != &in[0] || !bytes.Equal(got, in) {
		t.Errorf("a frame without placeholders was copied or changed: %q", got)
	}
}
