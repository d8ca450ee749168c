package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// treePayloadAsReference decodes raw's payload off the tree, whether the
// frame passes the schemas or not (ReadRequest does so only when it does),
// and compares it with lmp.DecodeClientPayload. It reports whether the
// tree decoded it, and the disagreement, if any.
func treePayloadAsReference(raw []byte) (decoded bool, diff string) {
	if len(raw) > MaxClientBytes || !utf8.Valid(raw) {
		return false, ""
	}
	c := checkers.Get().(*checker)
	defer c.release()
	f, _, decided, err := c.decodeClientFrame(raw, false)
	if !decided || err != nil || f.Payload == nil {
		return false, ""
	}
	got, decoded := c.clientPayload(f.Type, c.t.member(0, "payload"))
	if !decoded {
		return false, ""
	}
	want, wantErr := lmp.DecodeClientPayload(f)
	if wantErr != nil || !reflect.DeepEqual(got, want) {
		return true, fmt.Sprintf("payload of %q off the tree %#v; lmp.DecodeClientPayload's %#v, %v", raw, got, want, wantErr)
	}
	return true, ""
}

// TestPayloadEdges holds the typed payload read off the tree to
// lmp.DecodeClientPayload where the two could part, and says for each
// frame whether the tree decoded the payload or left it to encoding/json,
// so that the fast path is known to be taken.
func TestPayloadEdges(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		decoded bool
	}{
		{`{"v":1,"type":"session.send","payload":{"text":"hi","request_id":"r1","task_id":"t1"}}`, true},
		{`{"v":1,"type":"session.send","payload":{"text":"a\"\u00e9\n","request_id":"r1"}}`, true},
		{`{"v":1,"type":"session.send","payload":{"text":"a","text":"b","request_id":"r"}}`, true},
		{`{"v":1,"type":"session.send","payload":{"task_id":"t","task_id":null,"text":"a"}}`, true},
		{`{"v":1,"type":"session.send","payload":{"text":"a","text":null}}`, true},
		{`{"v":1,"type":"session.send","payload":{"text":"a","extra":{"b":[1,{"c":null}]},"more":true}}`, true},
		{`{"v":1,"type":"session.send","payload":{"text":5}}`, false},
		{`{"v":1,"type":"session.send","payload":{"task_id":["t"]}}`, false},
		{`{"v":1,"type":"session.send","payload":null}`, true},
		{`{"v":1,"type":"session.send","payload":[]}`, false},
		{`{"v":1,"type":"session.send","payload":"text"}`, false},
		{`{"v":1,"type":"session.send"}`, false},
		{`{"v":1,"type":"task.list","payload":{"request_id":"r","limit":3,"status_filter":"live"}}`, true},
		{`{"v":1,"type":"task.list","payload":{"limit":-0}}`, true},
		{`{"v":1,"type":"task.list","payload":{"limit":3,"limit":null}}`, true},
		{`{"v":1,"type":"task.list","payload":{"limit":3,"limit":4}}`, true},
		{`{"v":1,"type":"task.list","payload":{"limit":1.0}}`, false},
		{`{"v":1,"type":"task.list","payload":{"limit":1e2}}`, false},
		{`{"v":1,"type":"task.list","payload":{"limit":1234567890123}}`, true},
		{`{"v":1,"type":"task.list","payload":{"limit":9223372036854775808}}`, false},
		{`{"v":1,"type":"task.list","payload":{"limit":"3"}}`, false},
		{`{"v":1,"type":"hello","payload":{"protocol_version":1,"token":"x","device_info":{"model":"m"},"device_info":{"os":"o"}}}`, true},
		{`{"v":1,"type":"hello","payload":{"protocol_version":1,"last_seq":-5,"device_info":null}}`, true},
		{`{"v":1,"type":"hello","payload":{"device_info":[]}}`, false},
		{`{"v":1,"type":"hello","payload":{"device_info":{"model":1}}}`, false},
		{`{"v":1,"type":"hello","payload":{"protocol_version":true}}`, false},
		{`{"v":1,"type":"approval.resolve","payload":{"approval_id":"a","choice":"once","reason":"","request_id":"r"}}`, true},
		{`{"v":1,"type":"ping","payload":{"anything":[1,2,{"x":"y"}]}}`, true},
		{`{"v":1,"type":"pong","payload":{}}`, true},
		{`{"v":1,"type":"run.cancel","payload":{"run_id":"r"}}`, true},
		{`{"v":1,"type":"no.such.type","payload":{"run_id":"r"}}`, true},
		{`{"v":1,"type":"run.cancel","payload":{"Run_id":"r"}}`, false},
		{`{"v":1,"type":"run.cancel","payload":{"run_id":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`, false},
	} {
		if _, diff := sameAsSeparate([]byte(tc.raw)); diff != "" {
			t.Error(diff)
		}
		decoded, diff := treePayloadAsReference([]byte(tc.raw))
		if diff != "" {
			t.Error(diff)
		}
		if decoded != tc.decoded {
			t.Errorf("%s: payload decoded off the tree: %v, want %v", tc.raw, decoded, tc.decoded)
		}
	}
}

// TestEveryClientPayloadIsPlanned: each client payload type decodes off
// the tree. A field of a kind the plan does not model leaves its type to
// encoding/json, correct but slow; this test says which.
func TestEveryClientPayloadIsPlanned(t *testing.T) {
	plans := payloadPlans()
	for _, typ := range lmp.ClientTypes {
		if _, ok := lmp.ClientPayloadType(typ); !ok {
			t.Errorf("lmp.ClientTypes lists %s, which has no payload type", typ)
			continue
		}
		if plans[typ] == nil {
			t.Errorf("%s: its payload has a field the tree does not decode: model its kind in planFields", typ)
		}
	}
	// A plan refuses what encoding/json would decode differently.
	for _, v := range []any{
		struct {
			B bool `json:"b"`
		}{},
		struct {
			Name string `json:"Name"`
		}{},
		struct {
			N json.Number `json:"n"`
		}{},
		struct {
			S *struct{} `json:"s"`
		}{},
		struct {
			N int `json:"n,omitempty,string"`
		}{},
	} {
		if _, ok := planFields(reflect.TypeOf(v)); ok {
			t.Errorf("planFields(%T) planned a field encoding/json may decode otherwise", v)
		}
	}
}

// TestTextRemembersLongStrings: a long escaped string read again is the
// same text, however many strings the frame has and however often buf grew
// in between; short ones and those beyond the first few are unescaped anew.
func TestTextRemembersLongStrings(t *testing.T) {
	var b strings.Builder
	var want []string
	b.WriteString(`{`)
	for i := range 12 {
		if i > 0 {
			b.WriteString(`,`)
		}
		n := 10 + 30*i // the first few are short
		fmt.Fprintf(&b, `"k%d":"%s"`, i, strings.Repeat(`\u00e9\n`, n))
		want = append(want, strings.Repeat("é\n", n))
	}
	b.WriteString(`}`)
	c := checkers.Get().(*checker)
	defer c.release()
	if !c.t.parse([]byte(b.String())) {
		t.Fatal("parse failed")
	}
	for round := range 3 {
		i := 0
		for m := c.t.nodes[0].first; m >= 0; m = c.t.nodes[m].next {
			if got := string(c.t.text(m, false)); got != want[i] {
				t.Fatalf("round %d, string %d: %q, want %q", round, i, got, want[i])
			}
			i++
		}
	}
	if len(c.t.unescaped) != rememberTexts {
		t.Errorf("%d strings remembered, want %d", len(c.t.unescaped), rememberTexts)
	}
}
