package fuzz

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

// FuzzQRPayload attacks what a phone scans (P-2): every payload the schema
// accepts decodes into lmp.QRPayload with v 1, and deriving the pairing
// endpoint from its URL never panics and yields an http(s) URL whenever it
// succeeds.
func FuzzQRPayload(f *testing.F) {
	for _, kind := range []string{"valid", "invalid"} {
		for _, raw := range examples(f, kind, "http") {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"v":1,"url":"ws://[::1]:1/ws","token":"t","name":"n","fp":""}`))
	f.Add([]byte(`{"v":1,"url":"wss://h/ws?x#y","token":"","name":"","fp":"zz"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var q lmp.QRPayload
		jsonErr := json.Unmarshal(raw, &q)
		if jsonErr == nil {
			if pair, err := client.PairURLFor(q.URL); err == nil {
				u, perr := url.Parse(pair)
				if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != lmp.PathPairNew {
					t.Fatalf("PairURLFor(%q) = %q", q.URL, pair)
				}
			}
		}
		if len(schema.ValidateDocument("http/qr", raw)) > 0 {
			return
		}
		if jsonErr != nil || q.V != lmp.Version {
			t.Fatalf("schema-valid QR payload decodes to %+v, %v", q, jsonErr)
		}
	})
}
