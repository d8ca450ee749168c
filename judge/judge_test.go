package judge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// short are timings for apps that answer at once, or never.
func short() Timings {
	return Timings{PongTimeout: 10 * time.Second, FirstContact: 20 * time.Second, ActionTimeout: 2 * time.Second,
		Reconnect: 2 * time.Second, Quiet: time.Second, Burst: 50}
}

// passiveApp pairs from the pairing file, answers pings and does nothing
// else: it never acts on an lmp_check action.
func passiveApp(ctx context.Context, t *testing.T, pairingFile string) {
	var qr lmp.QRPayload
	for ctx.Err() == nil {
		raw, err := os.ReadFile(pairingFile)
		if err == nil && json.Unmarshal(raw, &qr) == nil && qr.Token != "" {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	ws, _, err := websocket.Dial(ctx, qr.URL, nil)
	if err != nil {
		t.Errorf("dial: %v", err)
		return
	}
	defer ws.CloseNow()
	hello, _ := lmp.NewClientFrame(lmp.Hello{ProtocolVersion: 1, Token: qr.Token, DeviceInfo: lmp.DeviceInfo{Model: "m", OS: "o", AppVersion: "1"}})
	raw, _ := json.Marshal(hello)
	if err := ws.Write(ctx, websocket.MessageText, raw); err != nil {
		return
	}
	pong, _ := json.Marshal(lmp.ClientFrame{V: 1, Type: lmp.TypePong, Payload: json.RawMessage(`{}`)})
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var f lmp.Frame
		if json.Unmarshal(data, &f) == nil && f.Type == lmp.TypePing {
			_ = ws.Write(ctx, websocket.MessageText, pong)
		}
	}
}

// TestAnAppThatDoesNotActIsSkippedNotFailed: the specs that need an
// action get "the app did not act", never a failure; the ones that need
// none are judged.
func TestAnAppThatDoesNotActIsSkippedNotFailed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pairing := filepath.Join(t.TempDir(), "pairing.json")
	go passiveApp(ctx, t, pairing)
	sel := func(s Spec) bool { return s.Section == secApprovals || s.Text == specPong.Text }
	rep, err := Run(ctx, Config{Listen: "127.0.0.1:0", PairingFile: pairing, Timings: short(), Select: sel})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outcomes {
		switch {
		case o.Spec.Section == secApprovals:
			if o.State != Skipped || !strings.HasPrefix(o.Message, DidNotAct) {
				t.Errorf("%s: %s %q, want skipped: %s", o.Spec.Text, o.State, o.Message, DidNotAct)
			}
		case o.Spec.Text == specPong.Text:
			if o.State != Passed {
				t.Errorf("%s: %s %q, want passed", o.Spec.Text, o.State, o.Message)
			}
		case o.State != Skipped || o.Message != NotSelected:
			t.Errorf("%s: %s %q, want skipped: %s", o.Spec.Text, o.State, o.Message, NotSelected)
		}
	}
}

// TestNoAppEndsWithAVerdict: with no app at all, the run ends at the
// pairing timeout and every spec is skipped with the reason.
func TestNoAppEndsWithAVerdict(t *testing.T) {
	tm := short()
	tm.FirstContact = 200 * time.Millisecond
	rep, err := Run(context.Background(), Config{Listen: "127.0.0.1:0", Timings: tm})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outcomes {
		if o.State != Skipped || o.Message == "" {
			t.Errorf("%s: %s %q, want skipped with a reason", o.Spec.Text, o.State, o.Message)
		}
	}
	if !rep.NoApp {
		t.Error("the report does not say that no app connected")
	}
}

// TestBinaryFirstFrameIsJudged: an app whose first frame is binary gets
// failures of C-1 and C-4, not a crash or a hang.
func TestBinaryFirstFrameIsJudged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pairing := filepath.Join(t.TempDir(), "pairing.json")
	go func() {
		for ctx.Err() == nil {
			raw, err := os.ReadFile(pairing)
			var qr lmp.QRPayload
			if err == nil && json.Unmarshal(raw, &qr) == nil && qr.Token != "" {
				ws, _, err := websocket.Dial(ctx, qr.URL, nil)
				if err != nil {
					return
				}
				defer ws.CloseNow()
				_ = ws.Write(ctx, websocket.MessageBinary, []byte{0xff, 0x00})
				_ = ws.Write(ctx, websocket.MessageText, []byte(`{"v":1,"type":"hello","payload":{"protocol_version":1}}`))
				_, _, _ = ws.Read(ctx)
				return
			}
			time.Sleep(10 * time.Millisecond) // polling a file, as a harness does
		}
	}()
	tm := short()
	// The app connects as soon as it reads the pairing file, and the run
	// ends on its first frames: the bound only stops a run whose app
	// never came, so it is no speed asked of a loaded machine.
	tm.FirstContact = 50 * time.Second
	rep, err := Run(ctx, Config{Listen: "127.0.0.1:0", PairingFile: pairing, Timings: tm})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]State{}
	for _, o := range rep.Outcomes {
		got[o.Spec.Text] = o.State
	}
	if got[specPairHello.Text] != Failed || got[specFrames.Text] != Failed {
		t.Errorf("pairing %s, frames %s; want both failed", got[specPairHello.Text], got[specFrames.Text])
	}
}

// TestPairingFileAndPage: the pairing file holds exactly the QR payload,
// written whole (no temporary file left beside it), and the page on
// loopback shows the QR and the step.
func TestPairingFileAndPage(t *testing.T) {
	dir := t.TempDir()
	pairing := filepath.Join(dir, "pairing.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Report, 1)
	go func() {
		tm := short()
		tm.FirstContact = time.Minute
		rep, _ := Run(ctx, Config{Listen: "127.0.0.1:0", PairingFile: pairing, Timings: tm})
		done <- rep
	}()
	var qr lmp.QRPayload
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		raw, err := os.ReadFile(pairing)
		if err == nil && json.Unmarshal(raw, &qr) == nil && qr.Token != "" {
			break
		}
		time.Sleep(10 * time.Millisecond) // polling a file, as a harness does
	}
	if qr.V != 1 || !strings.HasPrefix(qr.URL, "ws://127.0.0.1:") || qr.Name == "" || qr.FP != "" || len(qr.Token) < 40 {
		t.Errorf("pairing JSON %+v", qr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files beside the pairing file, want none", len(entries)-1)
	}
	page := strings.Replace(strings.TrimSuffix(qr.URL, "/ws"), "ws://", "http://", 1) + "/"
	var body string
	for (body == "" || !strings.Contains(body, "scan the QR code")) && time.Now().Before(deadline) {
		resp, err := http.Get(page)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
	}
	if !strings.Contains(body, "<svg") || !strings.Contains(body, "lmp-check app") {
		t.Errorf("the page lacks the QR or its title:\n%s", body)
	}
	req, _ := http.NewRequest(http.MethodGet, page, nil)
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode == http.StatusOK {
		t.Errorf("a forwarded request got the page: %v", err)
	}
	cancel()
	<-done
}

// TestSpecsDeclaredOnce: Specs() holds every spec once, the pairing spec
// first, and every spec a scenario plays or needs is among them (each
// spec variable declares itself: there is no second list to forget one).
func TestSpecsDeclaredOnce(t *testing.T) {
	specs := Specs()
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.Text] {
			t.Errorf("%q is listed twice", s.Text)
		}
		seen[s.Text] = true
	}
	if len(specs) == 0 || specs[0].Text != specPairHello.Text {
		t.Fatalf("Specs() does not start with the pairing spec: %d specs", len(specs))
	}
	for _, sc := range scenarios() {
		for _, s := range append(sc.specs, sc.alsoFor...) {
			if !seen[s.Text] {
				t.Errorf("the scenario's spec %q is not in Specs()", s.Text)
			}
		}
	}
	for _, s := range []Spec{specNoUsedToken, specFrames, specDistinctIDs} { // judged over the whole run
		if !seen[s.Text] {
			t.Errorf("%q is not in Specs()", s.Text)
		}
	}
}
