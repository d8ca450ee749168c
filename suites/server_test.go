package suites_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// startServer starts a reference server with a short timing profile on a
// loopback port and returns it as a conformance target.
func startServer(ctx context.Context, t *testing.T) conformance.Target {
	t.Helper()
	// The server logs to a file the S-1 spec scans for secrets.
	logPath := filepath.Join(t.TempDir(), "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() }) // runs after the server's Close
	inst, err := reference.Start(ctx, reference.Options{
		Addr: "127.0.0.1:0", DataDir: t.TempDir(),
		PingInterval: 3 * time.Second, PongTimeout: time.Second, AuthTimeout: 1500 * time.Millisecond,
		ApprovalTimeout: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(logFile, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := inst.Close(ctx); err != nil {
			t.Logf("close: %v", err)
		}
	})
	p, err := driver.New(inst.DriverURL, nil).Profile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Like lmp-check's in-process run: the event specs go through the
	// built-in triggers, the Hermes-side specs through the driver.
	return conformance.Target{WSURL: inst.WSURL, PairURL: inst.PairURL, DriverURL: inst.DriverURL,
		Triggers: conformance.MockTriggers(), PreferTriggers: true,
		Profile: conformance.ProfileFromDriver(p), ServerLog: logPath}
}
