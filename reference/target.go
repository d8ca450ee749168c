package reference

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// ShortProfile is the short timings a conformance run checks an in-process
// server with: a full run takes seconds instead of the spec timings' minute
// and a half. Its zero fields take the spec's values.
var ShortProfile = lmp.Profile{
	PingInterval: 3 * time.Second, PongTimeout: time.Second,
	AuthTimeout: 1500 * time.Millisecond, ApprovalTimeout: 5 * time.Second,
}

// Target is a reference server started for a conformance run, ready to be
// checked: a temporary data directory and log file, restartable in place.
// Its Profile is the timings and windows it runs with, known without asking
// its driver API.
type Target struct {
	WSURL, BaseURL, PairURL, DriverURL string
	// LogPath is the server's log file in the temporary directory: the S-1
	// spec scans it, and the console stays quiet.
	LogPath string
	// Profile is the server's timings and windows, defaults applied.
	Profile lmp.Profile

	opts Options
	log  *os.File
	dir  string

	mu   sync.Mutex
	inst *Instance // replaced by Restart
}

// StartTarget starts a reference server for a conformance run on addr
// (default "127.0.0.1:0"; one that is not loopback needs
// LOOMI_ALLOW_INSECURE_BIND=true, S-3) with the timings and windows of p, in
// a temporary directory that Close removes.
func StartTarget(ctx context.Context, addr string, p lmp.Profile) (*Target, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	listenHost, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %v", addr, err)
	}
	opts := Options{Addr: addr, Profile: p}
	dir, err := os.MkdirTemp("", "lmp-check-*")
	if err != nil {
		return nil, err
	}
	opts.DataDir = filepath.Join(dir, "data")
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("create the in-process server's log: %w", err)
	}
	opts.Logger = slog.New(slog.NewTextHandler(logFile, nil))
	inst, err := Start(ctx, opts)
	if err != nil {
		logFile.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start the in-process server: %w", err)
	}
	// A restart listens where this instance does: the same host, and the
	// port it picked.
	u, err := url.Parse(inst.BaseURL)
	if err != nil {
		_ = inst.Close(ctx)
		logFile.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	opts.Addr = net.JoinHostPort(listenHost, u.Port())
	return &Target{WSURL: inst.WSURL, BaseURL: inst.BaseURL, PairURL: inst.PairURL, DriverURL: inst.DriverURL,
		LogPath: logPath, Profile: inst.Profile, opts: opts, inst: inst, log: logFile, dir: dir}, nil
}

// Close stops the server and removes its directory.
func (t *Target) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t.mu.Lock()
	_ = t.inst.Close(ctx)
	t.mu.Unlock()
	_ = t.log.Close()
	_ = os.RemoveAll(t.dir)
}

// Restart is the server's graceful restart (the restart specs, note 4):
// what lmp-server does on SIGTERM and a new start, here the instance closed
// cleanly and a new one started on the same address and data directory,
// with a new mock Hermes.
func (t *Target) Restart(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	closeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := t.inst.Close(closeCtx)
	cancel()
	if err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	inst, err := Start(ctx, t.opts)
	if err != nil {
		return fmt.Errorf("start again: %w", err)
	}
	t.inst = inst
	return nil
}

// ListDevices is the server's device listing: the body of its loopback
// endpoint GET /internal/devices, which `lmp-server devices --json` prints.
// A run supplies it as a user supplies --list-cmd.
func (t *Target) ListDevices(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.BaseURL+server.PathDevices, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", req.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		// An error body names no secret: the endpoint never holds one.
		return "", fmt.Errorf("GET %s answered HTTP %d: %s", req.URL, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return string(body), nil
}
