package fuzz

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/fuzz/campaign"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
)

// One reference server per test process, shared by every input: starting
// one per input would measure start-up, not frame handling.
var (
	refOnce   sync.Once
	refInst   *reference.Instance
	refPlayer *campaign.Player
	refErr    error
	refDir    string
)

func player(t testing.TB) *campaign.Player {
	t.Helper()
	refOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if refDir, refErr = os.MkdirTemp("", "lmpkit-fuzz-"); refErr != nil {
			return
		}
		refInst, refErr = reference.Start(ctx, reference.Options{Addr: "127.0.0.1:0", DataDir: refDir, Profile: lmp.Profile{AuthTimeout: 2 * time.Second}})
		if refErr != nil {
			return
		}
		refPlayer, refErr = campaign.NewPlayer(ctx, campaign.ReplayConfig{URL: refInst.WSURL, PairURL: refInst.PairURL})
	})
	if refErr != nil {
		t.Fatal(refErr)
	}
	return refPlayer
}

func TestMain(m *testing.M) {
	code := m.Run()
	if refInst != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		refInst.Close(ctx)
		cancel()
	}
	if refDir != "" {
		os.RemoveAll(refDir)
	}
	os.Exit(code)
}

// validHello authenticates as the player's device: its placeholders are
// filled in as the frame is sent.
const validHello = `{"v":1,"type":"hello","payload":{"protocol_version":1,"device_id":"{{device_id}}","credential":"{{credential}}","device_info":{"model":"m","os":"o","app_version":"1"}}}`

// FuzzServerInbound feeds the reference server's inbound frame handling,
// over a real loopback connection: data is split into frames at newlines
// and sent on a fresh connection, after a valid hello when authed is set.
// Every oracle of a campaign applies: no crash (/health answers), only
// schema-valid server frames, only legitimate close codes, no secret in a
// frame, no state before hello.ok.
func FuzzServerInbound(f *testing.F) {
	for _, raw := range examples(f, "valid", "c2s") {
		f.Add(true, bytes.ReplaceAll(raw, []byte("\n"), nil))
		f.Add(false, bytes.ReplaceAll(raw, []byte("\n"), nil))
	}
	for _, raw := range examples(f, "invalid", "c2s") {
		f.Add(true, bytes.ReplaceAll(raw, []byte("\n"), nil))
	}
	f.Add(true, []byte(validHello+"\n"+`{"v":1,"type":"approval.resolve","payload":{"approval_id":"x","choice":"once","request_id":"r"}}`+"\n"+`{"v":1,"type":"approval.resolve","payload":{"approval_id":"x","choice":"once","request_id":"r"}}`))
	f.Add(false, []byte("\xff\xfe\n{\n"))
	// Regression inputs of issue 13 (amplification, UTF-8), replayed by
	// every go test: a 400,000-character task_id made a 1.2 MB run.started
	// for every device and an 800 KB ack; a request_id of U+2028 (six
	// bytes escaped) made a 1 MB task.list.result; a 900 KB device_info
	// model was stored and listed; 0xFF 0xFE in device_info paired a device.
	f.Add(true, []byte(`{"v":1,"type":"session.send","payload":{"task_id":"`+strings.Repeat("x", 400_000)+`","text":"hello","request_id":"r1"}}`))
	f.Add(true, []byte(`{"v":1,"type":"task.list","payload":{"request_id":"`+strings.Repeat("\u2028", 170_000)+`"}}`))
	f.Add(false, []byte(`{"v":1,"type":"hello","payload":{"protocol_version":1,"token":"{{token}}","device_info":{"model":"`+strings.Repeat("m", 900_000)+`","os":"o","app_version":"1"}}}`))
	f.Add(false, []byte(`{"v":1,"type":"hello","payload":{"protocol_version":1,"device_id":"{{device_id}}","credential":"{{credential}}","device_info":{"model":"`+"\xff\xfe"+`","os":"o","app_version":"1"}}}`))
	f.Fuzz(func(t *testing.T, authed bool, data []byte) {
		p := player(t)
		ep := campaign.Episode{Kind: "native",
			MayAuth: authed || bytes.Contains(data, []byte(campaign.PhCredential)) || bytes.Contains(data, []byte(campaign.PhToken))}
		if authed {
			ep.Steps = append(ep.Steps, campaign.Step{Op: campaign.OpText, Data: []byte(validHello)})
		}
		for _, frame := range bytes.Split(data, []byte("\n")) {
			if len(ep.Steps) >= 64 {
				break
			}
			ep.Steps = append(ep.Steps, campaign.Step{Op: campaign.OpText, Data: frame})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, fd := range p.Play(ctx, ep) {
			t.Errorf("%s [%s]: %s", fd.Kind, fd.Rule, fd.Message)
		}
	})
}
