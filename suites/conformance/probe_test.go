package conformance

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/match"
)

// TestSelectsTimerSpec: the probes start with the suite only when the
// label filter selects a timer spec; a run of other specs (the restart
// specs, which wait for running probes) does not start them.
func TestSelectsTimerSpec(t *testing.T) {
	saved := timerSpecLabels
	defer func() { timerSpecLabels = saved }()
	timerSpecLabels = [][]string{
		{"section:heartbeat", "MUST", "T-5", "timer"},
		{"section:pairing", "MUST", "P-5", "timer"},
	}
	for filter, want := range map[string]bool{
		"":                  true,
		"T-5":               true,
		"section:pairing":   true,
		"MUST && !timer":    false,
		"section:restart":   false,
		"restart || S-5":    false,
		"timer && !T-5":     true,
		"((":                true, // Ginkgo reports the bad filter itself
		"section:heartbeat": true,
	} {
		if got := selectsTimerSpec(filter); got != want {
			t.Errorf("%q: %v, want %v", filter, got, want)
		}
	}
}

// dialClosedAtOnce connects a probe device, named "probe device", to a
// server that closes every connection at once with 4321; the server and
// the connection end with the test.
func dialClosedAtOnce(ctx context.Context, t *testing.T) *Conn {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		_ = c.Close(4321, "heartbeat broken")
	}))
	t.Cleanup(srv.Close)
	cc, err := client.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := &Conn{Conn: cc, Name: "probe device"}
	t.Cleanup(func() { _ = conn.CloseNow() })
	return conn
}

// TestWhileOpenFailsAtOnceOnClose: a probe waiting on a long timer over a
// connection the server closes fails as soon as the close arrives, and
// its error names the close code.
func TestWhileOpenFailsAtOnceOnClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := dialClosedAtOnce(ctx, t)
	p := &Probe{Name: "approval timeout"}
	wait, stop := p.WhileOpen(ctx, conn)
	defer stop()
	start := time.Now()
	<-wait.Done() // the approval timeout would be minutes
	err := Cause(wait, wait.Err())
	if !errors.Is(err, ErrProbeConnClosed) || !strings.Contains(err.Error(), "4321") || !strings.Contains(err.Error(), "probe device") {
		t.Errorf("error %q does not say that the server closed the probe's connection with 4321", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the probe learned of the close after %v", d)
	}
}

// TestCauseOfAWaitOnTheClosedConnection: a wait on the connection the
// server closed can return before WhileOpen's watcher ends the probe's
// context; its error still says that the server closed the probe's
// connection, with the code and the connection's name.
func TestCauseOfAWaitOnTheClosedConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := dialClosedAtOnce(ctx, t)
	// No WhileOpen: the context never learns of the close, as when the
	// wait returns first.
	_, err := conn.Expect(ctx, match.Type(lmp.TypeApprovalRequired))
	if err == nil {
		t.Fatal("a frame arrived on a connection the server closed at once")
	}
	err = Cause(ctx, err)
	if !errors.Is(err, ErrProbeConnClosed) || !strings.Contains(err.Error(), "4321") || !strings.Contains(err.Error(), "probe device") {
		t.Errorf("error %q does not say that the server closed the probe's connection with 4321", err)
	}
	if again := Cause(ctx, err); again.Error() != err.Error() {
		t.Errorf("Cause applied twice wraps again: %q", again)
	}
	// An error that is not the connection's end stays as it is.
	plain := errors.New("driver approval: 502")
	if got := Cause(ctx, plain); got != plain {
		t.Errorf("Cause(%q) = %q", plain, got)
	}
}
