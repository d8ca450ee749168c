package dashboard

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// pairedLog returns a log that saw a device pair: its hello with the
// token and the hello.ok with its credential.
func pairedLog(token, cred string) *frameLog {
	l := newFrameLog()
	l.observe(server.ObservedFrame{Conn: 1, Data: []byte(`{"v":1,"type":"hello","payload":{"token":"` + token + `","protocol_version":1}}`)})
	l.observe(server.ObservedFrame{Conn: 1, Sent: true, Data: frame("hello.ok", 0, `{"device_id":"dev_a","credential":"`+cred+`"}`)})
	return l
}

// TestRedactsWhereverASecretAppears: a token or credential is replaced by
// its fingerprint in any frame, at any place, however it is surrounded,
// in the indexed fields too, and in a frame cut at maxFrameText (S-1).
func TestRedactsWhereverASecretAppears(t *testing.T) {
	token, cred := benchSecret(), benchSecret()
	l := pairedLog(token, cred)
	sent := []string{
		string(frame("run.delta", 1, `{"text":"`+cred+`"}`)),
		string(frame("notification", 2, `{"nested":[{"deep":{"x":"a `+cred+` b"}}],"`+token+`":1}`)),
		string(frame("error", 3, `{"message":"glued:xx`+cred+cred+`yy-`+token+`_"}`)),
		`{"v":1,"seq":4,"type":"run.delta","task_id":"` + cred + `","run_id":"` + token + `","payload":{}}`,
		`{"type":"` + cred + `"}`,
		cred + ` not json ` + token,
		`{"v":1,"type":"session.send","payload":{"text":"` + strings.Repeat("x", maxFrameText-70) + ` ` + cred + ` ` + strings.Repeat("y", 100) + `"}}`,
		`{"v":1,"type":"session.send","payload":{"text":"` + strings.Repeat("é", maxFrameText/2-21) + cred + `"}}`,
	}
	for i, s := range sent {
		l.observe(server.ObservedFrame{Conn: 1, Sent: i%2 == 0, Data: []byte(s)})
	}
	backlog, _ := l.subscribe()
	if len(backlog) != 2+len(sent) {
		t.Fatalf("%d frames", len(backlog))
	}
	for _, f := range backlog {
		shown, _ := json.Marshal(f)
		if strings.Contains(string(shown), cred) || strings.Contains(string(shown), token) || strings.Contains(string(shown), cred[:20]) || strings.Contains(string(shown), token[:20]) {
			t.Errorf("a secret in the log: %.300s", shown)
		}
	}
	named := lmp.Redacted + ":" + lmp.Fingerprint(cred)
	for i, want := range []int{1, 1, 2, 1, 1, 1, 0, 0} {
		if got := strings.Count(backlog[2+i].Text, named); got != want {
			t.Errorf("frame %d names the credential %d times, want %d: %.200s", i, got, want, backlog[2+i].Text)
		}
	}
	if f := backlog[5]; f.TaskID != named || f.RunID != lmp.Redacted+":"+lmp.Fingerprint(token) {
		t.Errorf("indexed fields not redacted: %+v", f)
	}
	if f := backlog[8]; !strings.HasSuffix(f.Text, "bytes)") || len(f.Text) > maxFrameText+32 {
		t.Errorf("a long frame not cut: %d bytes ending %q", len(f.Text), f.Text[len(f.Text)-40:])
	}
}

// TestRedactsAFrameSeenBeforeItsSecret: the log redacts when a page reads
// it, so a frame that held a secret before the log learned it (here an
// echo before the hello.ok) is shown redacted all the same.
func TestRedactsAFrameSeenBeforeItsSecret(t *testing.T) {
	cred := benchSecret()
	l := newFrameLog()
	l.observe(server.ObservedFrame{Conn: 1, Sent: true, Data: frame("error", 0, `{"message":"early `+cred+`"}`)})
	l.observe(server.ObservedFrame{Conn: 1, Sent: true, Data: frame("hello.ok", 0, `{"device_id":"dev_a","credential":"`+cred+`"}`)})
	backlog, _ := l.subscribe()
	if strings.Contains(backlog[0].Text, cred) || !strings.Contains(backlog[0].Text, lmp.Fingerprint(cred)) {
		t.Errorf("the early frame: %s", backlog[0].Text)
	}
	if backlog[0].Device != "dev_a" {
		t.Errorf("the early frame not tied to its device: %+v", backlog[0])
	}
}

// TestRedactsWithManySecrets: with more secrets than the log keeps, of
// several lengths, the newest keepSecrets are all redacted, in frames a
// live page receives as in the backlog.
func TestRedactsWithManySecrets(t *testing.T) {
	l := newFrameLog()
	var secrets []string
	for i := range keepSecrets + 8 {
		s := benchSecret()[:minSecret+i%28]
		secrets = append(secrets, s)
		l.observe(server.ObservedFrame{Conn: uint64(i), Data: []byte(`{"type":"hello","payload":{"credential":"` + s + `"}}`)})
	}
	_, sub := l.subscribe()
	kept := secrets[len(secrets)-keepSecrets:]
	l.observe(server.ObservedFrame{Conn: 1, Sent: true, Data: []byte(`{"type":"error","payload":{"message":"` + strings.Join(kept, " ") + `"}}`)})
	f := l.render(<-sub.frames)
	for _, s := range kept {
		if strings.Contains(f.Text, s) {
			t.Fatalf("secret %s in %.200s", s, f.Text)
		}
	}
	if n := strings.Count(f.Text, lmp.Redacted); n != keepSecrets {
		t.Errorf("%d redactions, want %d", n, keepSecrets)
	}
}

// FuzzScanEnvelope: the scan finds what encoding/json finds in any valid
// JSON object of valid UTF-8, and never panics on anything else.
func FuzzScanEnvelope(f *testing.F) {
	f.Add(frame("run.delta", 42, `{"text":"a \"type\":\"x\" }","type":"inner","seq":9}`))
	f.Add([]byte(` { "type" : "p\u0069ng" , "seq" : -3 , "task_id" : null , "run_id":"r\\1", "payload" : [1, {"a":"]"}] } `))
	f.Add([]byte(`{"seq":1.5,"type":7,"task_id":"t"}`))
	f.Add([]byte(`{"type":"a"`))
	f.Add([]byte("\xff not json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		env := scanEnvelope(data)
		var top map[string]json.RawMessage
		if !utf8.Valid(data) || json.Unmarshal(data, &top) != nil {
			return // encoding/json would replace invalid UTF-8; the page does when it renders
		}
		field := func(name string) any {
			var v any
			_ = json.Unmarshal(top[name], &v)
			return v
		}
		if s, ok := field("type").(string); ok != (env.Type != nil) || ok && s != string(env.Type) {
			t.Errorf("type %q, want %q", env.Type, top["type"])
		}
		if s, ok := field("task_id").(string); ok != (env.TaskID != nil) || ok && s != string(env.TaskID) {
			t.Errorf("task_id %q, want %q", env.TaskID, top["task_id"])
		}
		if s, ok := field("run_id").(string); ok != (env.RunID != nil) || ok && s != string(env.RunID) {
			t.Errorf("run_id %q, want %q", env.RunID, top["run_id"])
		}
		var seq int64
		if json.Unmarshal(top["seq"], &seq) == nil && top["seq"] != nil && string(top["seq"]) != "null" && (!env.HasSeq || env.Seq != seq) {
			t.Errorf("seq %d %v, want %s", env.Seq, env.HasSeq, top["seq"])
		}
		if p := top["payload"]; p != nil && string(p) != string(env.Payload) {
			t.Errorf("payload %q, want %q", env.Payload, p)
		}
	})
}

// TestGivenEnvelopeIndexesAsScanned: a frame is indexed from the Envelope
// the server hands over exactly as from a scan of its bytes: one it wrote,
// and one it read and decoded as a client frame (type and payload only).
// Secrets are learned from a given payload too: hello.ok's credential, a
// hello's token (S-1).
func TestGivenEnvelopeIndexesAsScanned(t *testing.T) {
	const cred = "cred_SECRET_abcdef0123456789"
	const token = "tok_SECRET_9876543210fedcba"
	task, run := "task_1", "run_<1>"
	frames := []struct {
		sent bool
		data []byte
		env  server.Envelope
	}{
		{true, frame("hello.ok", 0, `{"device_id":"dev_a","credential":"`+cred+`"}`),
			server.Envelope{Type: "hello.ok", TaskID: &task, Payload: []byte(`{"device_id":"dev_a","credential":"` + cred + `"}`)}},
		{true, []byte(`{"v":1,"seq":5,"ts":1,"type":"run.delta","task_id":"task_1","run_id":"run_\u003c1\u003e","event_id":"e_5","payload":{"text":"` + cred + `"}}`),
			server.Envelope{Type: "run.delta", Seq: 5, TaskID: &task, RunID: &run, Payload: []byte(`{"text":"` + cred + `"}`)}},
		{true, frame("pong", 5, `{}`), server.Envelope{Type: "pong", Seq: 5, TaskID: &task, Payload: []byte(`{}`)}},
		{false, []byte(`{"v":1,"type":"session.send","payload":{"text":"` + cred + `","request_id":"r1"}}`),
			server.Envelope{Type: "session.send", Payload: []byte(`{"text":"` + cred + `","request_id":"r1"}`)}},
		{false, []byte(` { "payload" : { "protocol_version" : 1, "token" : "` + token + `" } , "type" : "hello" , "v" : 1 } `),
			server.Envelope{Type: "hello", Payload: []byte(`{ "protocol_version" : 1, "token" : "` + token + `" }`)}},
	}
	scanned, given := newFrameLog(), newFrameLog()
	for _, f := range frames {
		scanned.observe(server.ObservedFrame{Conn: 3, Sent: f.sent, Data: f.data})
		given.observe(server.ObservedFrame{Conn: 3, Sent: f.sent, Data: f.data, Envelope: f.env})
	}
	a, _ := scanned.subscribe()
	b, _ := given.subscribe()
	if len(a) != len(frames) || len(b) != len(frames) {
		t.Fatalf("%d and %d frames, want %d", len(a), len(b), len(frames))
	}
	for i := range a {
		a[i].At, b[i].At = 0, 0
		if x, y := mustMarshal(t, a[i]), mustMarshal(t, b[i]); x != y {
			t.Errorf("frame %d:\nscanned %s\n  given %s", i, x, y)
		}
		if strings.Contains(b[i].Text, cred) || strings.Contains(b[i].Text, token) {
			t.Errorf("secret not redacted: %s", b[i].Text)
		}
	}
	sa, sb := scanned.activity(), given.activity()
	for _, act := range []map[string]Activity{sa, sb} {
		for dev, d := range act {
			if d.LastSeen == 0 {
				t.Errorf("%s: a frame read from it did not set last_seen", dev)
			}
			d.LastSeen = 0 // the time each log read it
			act[dev] = d
		}
	}
	if mustMarshal(t, sa) != mustMarshal(t, sb) || sb["dev_a"].LastSeq != 5 {
		t.Errorf("activity scanned %s, given %s", mustMarshal(t, sa), mustMarshal(t, sb))
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
