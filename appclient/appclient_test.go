package appclient_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/appclient"
	"github.com/loomi-lmp/lmpkit/judge"
)

// testTimings are short: the reference client acts at once.
func testTimings() judge.Timings {
	return judge.Timings{PongTimeout: 10 * time.Second, FirstContact: 20 * time.Second, ActionTimeout: 20 * time.Second,
		Reconnect: 20 * time.Second, Quiet: time.Second, Burst: 600}
}

// judgeReference runs the judge against the reference app client over
// real sockets, the client pairing from the judge's pairing file.
func judgeReference(t *testing.T) (judge.Report, error) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pairing := filepath.Join(dir, "pairing.json")
	var out strings.Builder
	appDone := make(chan error, 1)
	appCtx, stopApp := context.WithCancel(ctx)
	defer stopApp()
	go func() {
		appDone <- appclient.Run(appCtx, appclient.Options{PairingFile: pairing, StateFile: filepath.Join(dir, "state.json"),
			ReconnectDelay: 50 * time.Millisecond})
	}()
	rep, err := judge.Run(ctx, judge.Config{Listen: "127.0.0.1:0", PairingFile: pairing, Timings: testTimings(), Out: &out})
	if err != nil {
		t.Fatalf("judge: %v", err)
	}
	select {
	case appErr := <-appDone:
		return rep, appErr
	case <-time.After(5 * time.Second):
		return rep, errors.New("the app client was still running after protocol_version 2")
	}
}

// TestReferenceClientPassesEverySpec: the reference app client passes
// every MUST and SHOULD spec of an app run, and stops after
// protocol_version 2 with ErrUnsupportedVersion.
func TestReferenceClientPassesEverySpec(t *testing.T) {
	rep, appErr := judgeReference(t)
	for _, o := range rep.Outcomes {
		if o.State != judge.Passed {
			t.Errorf("%s [%s] %s: %s: %s\n%s", o.Spec.Section, strings.Join(o.Spec.Rules, ","), o.Spec.Text, o.State, o.Message, o.Transcript)
		}
	}
	if len(rep.Outcomes) != len(judge.Specs()) {
		t.Errorf("%d outcomes for %d specs", len(rep.Outcomes), len(judge.Specs()))
	}
	if !errors.Is(appErr, appclient.ErrUnsupportedVersion) {
		t.Errorf("the app client ended with %v, want ErrUnsupportedVersion", appErr)
	}
}
