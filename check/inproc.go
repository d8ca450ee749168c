package check

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

	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/server"
)

// ShortProfile holds the in-process server's short timings: a full run
// takes seconds instead of the spec timings' minute and a half.
var ShortProfile = struct {
	PingInterval, PongTimeout, AuthTimeout, ApprovalTimeout time.Duration
}{3 * time.Second, time.Second, 1500 * time.Millisecond, 5 * time.Second}

// inProcess is a reference server started for a run without --url.
type inProcess struct {
	WSURL, BaseURL, PairURL, DriverURL string
	// LogPath is the server's log file in the temporary directory: the S-1
	// spec scans it, and the console stays quiet.
	LogPath string
	opts    reference.Options
	log     *os.File
	dir     string

	mu   sync.Mutex
	inst *reference.Instance // replaced by Restart
}

func (p *inProcess) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.mu.Lock()
	_ = p.inst.Close(ctx)
	p.mu.Unlock()
	_ = p.log.Close()
	_ = os.RemoveAll(p.dir)
}

// Restart is the in-process server's graceful restart (the restart specs,
// note 4): what lmp-server does on SIGTERM and a new start, here the
// instance closed cleanly and a new one started on the same address and
// data directory, with a new mock Hermes.
func (p *inProcess) Restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	closeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := p.inst.Close(closeCtx)
	cancel()
	if err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	inst, err := reference.Start(ctx, p.opts)
	if err != nil {
		return fmt.Errorf("start again: %w", err)
	}
	p.inst = inst
	return nil
}

// ListDevices is the in-process server's device listing: the body of its
// loopback endpoint GET /internal/devices, which `lmp-server devices
// --json` prints. lmp-check supplies it as a user supplies --list-cmd.
func (p *inProcess) ListDevices(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.BaseURL+server.PathDevices, nil)
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

// startInProcess starts a reference server on a loopback port with a
// temporary data directory, with the short or the spec timing profile.
func startInProcess(ctx context.Context, cfg Config) (*inProcess, string, error) {
	prof := cfg.Profile
	if prof == "" {
		prof = "short"
	}
	opts := reference.Options{Addr: cfg.Listen}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	listenHost, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, "", usagef("--listen %q: %v", opts.Addr, err)
	}
	switch prof {
	case "short":
		opts.PingInterval = ShortProfile.PingInterval
		opts.PongTimeout = ShortProfile.PongTimeout
		opts.AuthTimeout = ShortProfile.AuthTimeout
		opts.ApprovalTimeout = ShortProfile.ApprovalTimeout
	case "spec":
		// The spec names no approval timeout (note 15): Hermes' default of
		// 300 s would only make the run wait, so the short one is kept.
		opts.ApprovalTimeout = ShortProfile.ApprovalTimeout
	default:
		return nil, "", usagef("--profile %q: want short or spec", prof)
	}
	dir, err := os.MkdirTemp("", "lmp-check-*")
	if err != nil {
		return nil, "", err
	}
	opts.DataDir = filepath.Join(dir, "data")
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", fmt.Errorf("create the in-process server's log: %w", err)
	}
	opts.Logger = slog.New(slog.NewTextHandler(logFile, nil))
	inst, err := reference.Start(ctx, opts)
	if err != nil {
		logFile.Close()
		os.RemoveAll(dir)
		return nil, "", fmt.Errorf("start the in-process server: %w", err)
	}
	// A restart listens where this instance does: the same host, and the
	// port it picked.
	u, err := url.Parse(inst.BaseURL)
	if err != nil {
		_ = inst.Close(ctx)
		logFile.Close()
		os.RemoveAll(dir)
		return nil, "", err
	}
	opts.Addr = net.JoinHostPort(listenHost, u.Port())
	return &inProcess{WSURL: inst.WSURL, BaseURL: inst.BaseURL, PairURL: inst.PairURL, DriverURL: inst.DriverURL,
		LogPath: logPath, opts: opts, inst: inst, log: logFile, dir: dir}, prof, nil
}

// timingFlags sets, where cfg leaves them at zero, the timing flags to the
// in-process server's timings: what a user of a server without a driver
// passes on the command line (--no-driver).
func (p *inProcess) timingFlags(cfg *Config) {
	set := func(dst *time.Duration, v time.Duration) {
		if *dst == 0 {
			*dst = v
		}
	}
	set(&cfg.PingInterval, p.opts.PingInterval)
	set(&cfg.PongTimeout, p.opts.PongTimeout)
	set(&cfg.AuthTimeout, p.opts.AuthTimeout)
	set(&cfg.ApprovalTimeout, p.opts.ApprovalTimeout)
}
