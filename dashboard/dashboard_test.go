package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/browsertest"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/mockhermes"
	"github.com/loomi-lmp/lmpkit/server"
)

var pathRun = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-\d+z`)

// TestQRSVGDecodes draws the SVG's path as pixels and decodes it: the
// geometry is a QR code of the text, quiet zone included.
func TestQRSVGDecodes(t *testing.T) {
	text := `{"v":1,"url":"ws://127.0.0.1:8787/ws","token":"` + strings.Repeat("x", 43) + `","name":"laptop","fp":""}`
	svg, err := QRSVG(text, `code "for" <you>`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, `aria-label="code &quot;for&quot; &lt;you&gt;"`) || !strings.Contains(svg, `role="img"`) {
		t.Errorf("label not escaped or missing: %.200s", svg)
	}
	n, _ := strconv.Atoi(regexp.MustCompile(`viewBox="0 0 (\d+)`).FindStringSubmatch(svg)[1])
	const px = 4
	img := image.NewGray(image.Rect(0, 0, n*px, n*px))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for _, m := range pathRun.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		w, _ := strconv.Atoi(m[3])
		for dy := 0; dy < px; dy++ {
			for dx := 0; dx < w*px; dx++ {
				img.SetGray(x*px+dx, y*px+dy, color.Gray{})
			}
		}
	}
	got, err := browsertest.DecodeQR(img)
	if err != nil || got != text {
		t.Fatalf("decodes to %q, %v", got, err)
	}
}

func frame(typ string, seq int64, payload string) []byte {
	return []byte(`{"v":1,"seq":` + strconv.FormatInt(seq, 10) + `,"ts":1,"type":"` + typ + `","task_id":"task_1","run_id":null,"event_id":"e_1","payload":` + payload + `}`)
}

// TestFrameLogRedactsAndTracks: tokens and credentials never reach the
// log, wherever they appear, and a device's activity is followed from its
// frames.
func TestFrameLogRedactsAndTracks(t *testing.T) {
	const token, cred = "tok_SECRET_0123456789abcdef", "cred_SECRET_abcdef0123456789"
	l := newFrameLog()
	l.observe(server.ObservedFrame{Conn: 7, Data: []byte(`{"v":1,"type":"hello","payload":{"token":"` + token + `","protocol_version":1}}`)})
	l.observe(server.ObservedFrame{Conn: 7, Sent: true, Data: frame("hello.ok", 0, `{"device_id":"dev_a","credential":"`+cred+`"}`)})
	l.observe(server.ObservedFrame{Conn: 7, Sent: true, Data: frame("error", 0, `{"code":"x","message":"echo `+cred+` and `+token+`"}`)})
	l.observe(server.ObservedFrame{Conn: 7, Sent: true, Data: frame("run.delta", 5, `{}`)})
	l.observe(server.ObservedFrame{Conn: 7, Data: []byte(`{"v":1,"type":"session.send","payload":{"text":"hi","request_id":"r"}}`)})
	l.observe(server.ObservedFrame{Conn: 8, Data: []byte("\xff not json")})
	backlog, _ := l.subscribe()
	if len(backlog) != 6 {
		t.Fatalf("%d frames", len(backlog))
	}
	for _, f := range backlog {
		if strings.Contains(f.Text, token) || strings.Contains(f.Text, cred) {
			t.Errorf("secret in the log: %s", f.Text)
		}
	}
	if !strings.Contains(backlog[2].Text, lmp.Redacted+":"+lmp.Fingerprint(cred)) {
		t.Errorf("credential not named by its fingerprint: %s", backlog[2].Text)
	}
	if backlog[0].Device != "dev_a" || backlog[0].Dir != "in" || backlog[1].Dir != "out" || backlog[3].Seq == nil || *backlog[3].Seq != 5 {
		t.Errorf("pairing hello not tied to its device, or directions wrong: %+v", backlog[:4])
	}
	if backlog[5].Device != "" || backlog[5].Type != "" {
		t.Errorf("a malformed frame from an unknown connection: %+v", backlog[5])
	}
	a := l.activity()["dev_a"]
	if a.LastSeq != 5 || a.LastSeen == 0 || len(a.Conns) != 1 || a.Conns[0] != 7 {
		t.Errorf("activity %+v", a)
	}
}

type queue struct{ resolved []string }

func (q *queue) PendingApprovals() []mockhermes.PendingApproval {
	return []mockhermes.PendingApproval{{ID: "apr_1", Command: "rm -rf x", Choices: []string{"once", "deny"}}}
}

func (q *queue) ResolveLocally(id, choice string) bool {
	q.resolved = append(q.resolved, id+"="+choice)
	return id == "apr_1"
}

func newTestDashboard(t *testing.T) (*Dashboard, *httptest.Server, *queue) {
	q := &queue{}
	d := New(Options{Approvals: q, Pair: func(ctx context.Context, ttl time.Duration) (lmp.PairResponse, error) {
		return lmp.PairResponse{QRPayload: lmp.QRPayload{V: 1, URL: "ws://127.0.0.1:1/ws", Token: "t0k", Name: "n"}, ExpiresAt: 2e9}, nil
	}})
	ts := httptest.NewServer(server.LoopbackOnly(d.Handler())) // as lmp-server serves it
	t.Cleanup(func() { d.Close(); ts.Close() })
	return d, ts, q
}

func post(t *testing.T, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestRoutes: pairing answers the QR as SVG, approvals resolve at the
// gateway, and a page of another site can do neither.
func TestRoutes(t *testing.T) {
	_, ts, q := newTestDashboard(t)
	resp := post(t, ts.URL+PathPair, `{}`, nil)
	var p Pairing
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&p) != nil || !strings.HasPrefix(p.SVG, "<svg") || !strings.Contains(p.QR, `"token":"t0k"`) {
		t.Fatalf("pair: %d %+v", resp.StatusCode, p)
	}
	if resp := post(t, ts.URL+PathApprovals+"/apr_1", `{"choice":"once"}`, nil); resp.StatusCode != 200 {
		t.Errorf("resolve: %d", resp.StatusCode)
	}
	if resp := post(t, ts.URL+PathApprovals+"/apr_9", `{"choice":"once"}`, nil); resp.StatusCode != 404 {
		t.Errorf("resolve unknown: %d", resp.StatusCode)
	}
	if resp := post(t, ts.URL+PathApprovals+"/apr_1", `{}`, nil); resp.StatusCode != 400 {
		t.Errorf("resolve without a choice: %d", resp.StatusCode)
	}
	for _, h := range []map[string]string{{"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}} {
		if resp := post(t, ts.URL+PathApprovals+"/apr_1", `{"choice":"deny"}`, h); resp.StatusCode != 403 {
			t.Errorf("cross-site %v: %d", h, resp.StatusCode)
		}
		if resp := post(t, ts.URL+PathPair, `{}`, h); resp.StatusCode != 403 {
			t.Errorf("cross-site pair %v: %d", h, resp.StatusCode)
		}
	}
	if resp := post(t, ts.URL+PathPair, `{}`, map[string]string{"Origin": ts.URL, "Sec-Fetch-Site": "same-origin"}); resp.StatusCode != 200 {
		t.Errorf("same-origin pair: %d", resp.StatusCode)
	}
	if len(q.resolved) != 2 || q.resolved[0] != "apr_1=once" {
		t.Errorf("resolved %v", q.resolved)
	}
}

// TestEventStream: a page gets the backlog, then each new frame, and its
// stream ends when the dashboard closes.
func TestEventStream(t *testing.T) {
	d, ts, _ := newTestDashboard(t)
	d.Observe(server.ObservedFrame{Conn: 1, Sent: true, Data: frame("ping", 0, `{}`)})
	resp, err := http.Get(ts.URL + PathEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	next := func() Frame {
		t.Helper()
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				var f Frame
				if err := json.Unmarshal([]byte(data), &f); err != nil {
					t.Fatal(err)
				}
				return f
			}
		}
		t.Fatalf("stream ended: %v", lines.Err())
		return Frame{}
	}
	if f := next(); f.Type != "ping" {
		t.Fatalf("backlog %+v", f)
	}
	// The live part begins once the backlog is flushed.
	for lines.Scan() && lines.Text() != ": live" {
	}
	d.Observe(server.ObservedFrame{Conn: 1, Data: frame("pong", 0, `{}`)})
	if f := next(); f.Type != "pong" || f.Dir != "in" {
		t.Fatalf("live %+v", f)
	}

	// A page that reconnects gets only what it missed.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+PathEvents, nil)
	req.Header.Set("Last-Event-ID", "1")
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Body.Close()
	lines2 := bufio.NewScanner(again.Body)
	var got []string
	for lines2.Scan() && lines2.Text() != ": live" {
		if id, ok := strings.CutPrefix(lines2.Text(), "id: "); ok {
			got = append(got, id)
		}
	}
	if len(got) != 1 || got[0] != "2" {
		t.Errorf("after Last-Event-ID 1 the backlog resent frames %v, want [2]", got)
	}

	d.Close()
	for lines.Scan() {
	}
	if lines.Err() != nil {
		t.Fatalf("stream did not end cleanly: %v", lines.Err())
	}
}
