// Package conformance is the framework of the LMP conformance suites: the
// target under test, the one wrapper through which every spec is declared
// (It, with its rule IDs and level), the connections a spec opens (tracked,
// schema-validated, their transcripts attached on failure) and the
// background probes that let timer-bound specs overlap in time.
//
// Hermes-side events come from an event source (Events): the mock Hermes
// driver API when there is one, else session.send triggers (Triggers), so
// that every spec visible on the wire runs against any server. Target
// commands (ListDevices, Revoke, Restart) act on a server whose admin
// interface is not ours.
//
// It is black-box: it speaks to the server only through the wire protocol,
// the pairing endpoint, the target commands and, when configured, the mock
// Hermes driver API.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// Target is the server under test.
type Target struct {
	// WSURL is the LMP WebSocket URL, ws:// or wss://, path /ws.
	WSURL string
	// PairURL is the loopback pairing endpoint (P-1). Empty when tokens
	// come from TokenCmd only.
	PairURL string
	// TokenCmd is a shell command that prints the pairing JSON (with a
	// "token" field), used when PairURL is empty.
	TokenCmd string
	// DriverURL is the base URL of the mock Hermes driver API (with or
	// without driver.Prefix). Empty skips the specs that need Hermes-side
	// events.
	DriverURL string
	// Triggers are the session.send texts that produce Hermes-side events
	// on a server without a driver (--triggers). Nil without them.
	Triggers *Triggers
	// PreferTriggers makes the event specs use Triggers even when there is
	// a driver (the in-process run: the driver serves the specs that
	// observe the Hermes side, triggers the others, so one run exercises
	// both).
	PreferTriggers bool
	// RevokeCmd is a shell command that revokes the device named by its
	// {device_id} placeholder; exit status 0 means revoked (--revoke-cmd).
	// Empty: devices are revoked through the loopback admin endpoint
	// beside PairURL, if the server has one.
	RevokeCmd string
	// ListCmd is a shell command that prints the paired devices, naming
	// each by its device_id; exit status 0 means listed (--list-cmd).
	ListCmd string
	// ListFunc, when ListCmd is empty, returns the paired devices as the
	// server prints them: how lmp-check lists its in-process server's
	// devices. Nil without one: the listing specs skip.
	ListFunc func(context.Context) (string, error)
	// RestartCmd stops the server gracefully and starts it again
	// (--restart-cmd); CrashCmd kills it with SIGKILL and starts it again
	// (--crash-cmd). Each may return before the server answers: the
	// caller waits for /health. Empty skips the specs that need them.
	RestartCmd, CrashCmd string
	// RestartFunc, when RestartCmd is empty, stops the server gracefully
	// and starts it again on the same address and state: how lmp-check
	// restarts its in-process server. Nil without one.
	RestartFunc func(context.Context) error
	// HTTPClient carries TLS settings for https/wss; nil means
	// http.DefaultClient.
	HTTPClient *http.Client
	// Profile is the server's timing profile.
	Profile Profile
	// ServerLog is the path of the server's log file, read (never
	// written) by the S-1 spec to look for the secrets the run has seen.
	// Empty skips that spec.
	ServerLog string
	// Strict turns deviations from the spec's default timings into
	// failures (see the INFO spec in timing.go).
	Strict bool
}

// Profile is the timing profile the specs derive their waits from.
type Profile struct {
	PingInterval    time.Duration
	PongTimeout     time.Duration
	MissedPongs     int
	AuthTimeout     time.Duration
	PairTTL         time.Duration
	ApprovalTimeout time.Duration
	ReplayWindow    int
	RequestIDWindow int
	// Source says where the profile came from: "spec defaults", "flags",
	// "driver".
	Source string
}

// SpecProfile is the profile of the spec's defaults (25 s / 10 s / 300 s /
// 512 / 256).
func SpecProfile() Profile {
	return Profile{
		PingInterval: lmp.DefaultPingInterval, PongTimeout: lmp.DefaultPongTimeout,
		MissedPongs: lmp.DefaultMissedPongs, AuthTimeout: lmp.DefaultAuthTimeout,
		PairTTL: lmp.DefaultPairTTL, ApprovalTimeout: lmp.DefaultApprovalTimeout,
		ReplayWindow: lmp.DefaultReplayWindow, RequestIDWindow: lmp.DefaultRequestIDWindow,
		Source: "spec defaults",
	}
}

// ProfileFromDriver converts the driver API's profile.
func ProfileFromDriver(p driver.Profile) Profile {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	return Profile{
		PingInterval: ms(p.PingIntervalMS), PongTimeout: ms(p.PongTimeoutMS), MissedPongs: p.MissedPongs,
		AuthTimeout: ms(p.AuthTimeoutMS), PairTTL: ms(p.PairTTLMS), ApprovalTimeout: ms(p.ApprovalTimeoutMS),
		ReplayWindow: p.ReplayWindow, RequestIDWindow: p.RequestIDWindow, Source: "driver",
	}
}

// Deviations lists every way p differs from the spec's defaults.
func (p Profile) Deviations() []string {
	s := SpecProfile()
	var out []string
	check := func(name string, got, want any) {
		if got != want {
			out = append(out, fmt.Sprintf("%s is %v, the spec says %v", name, got, want))
		}
	}
	check("ping interval (T-4)", p.PingInterval, s.PingInterval)
	check("pong timeout (T-5)", p.PongTimeout, s.PongTimeout)
	check("missed pongs (T-5)", p.MissedPongs, s.MissedPongs)
	check("auth timeout (S-4)", p.AuthTimeout, s.AuthTimeout)
	check("pairing token TTL (P-5)", p.PairTTL, s.PairTTL)
	check("replay window (E-5)", p.ReplayWindow, s.ReplayWindow)
	check("request_id window (I-1)", p.RequestIDWindow, s.RequestIDWindow)
	return out
}

// String is one line naming the profile's timings.
func (p Profile) String() string {
	return fmt.Sprintf("ping %v, pong timeout %v, %d missed pongs, auth timeout %v, token TTL %v, approval timeout %v, replay window %d, request_id window %d (%s)",
		p.PingInterval, p.PongTimeout, p.MissedPongs, p.AuthTimeout, p.PairTTL, p.ApprovalTimeout,
		p.ReplayWindow, p.RequestIDWindow, p.Source)
}

var (
	targetMu sync.RWMutex
	target   *Target
)

// Configure sets the target. It must be called before the suites run.
func Configure(t Target) error {
	if t.WSURL == "" {
		return errors.New("conformance: target has no WebSocket URL")
	}
	if t.PairURL == "" && t.TokenCmd == "" {
		return errors.New("conformance: target has neither a pairing URL nor a token command")
	}
	if t.Profile.PingInterval <= 0 {
		src := t.Profile.Source
		t.Profile = SpecProfile()
		if src != "" {
			t.Profile.Source = src
		}
	}
	if t.Profile.MissedPongs <= 0 {
		t.Profile.MissedPongs = lmp.DefaultMissedPongs
	}
	if t.HTTPClient == nil {
		t.HTTPClient = http.DefaultClient
	}
	targetMu.Lock()
	target = &t
	targetMu.Unlock()
	return nil
}

// Current returns the configured target; it panics when Configure was not
// called, which is a wiring bug.
func Current() *Target {
	targetMu.RLock()
	defer targetMu.RUnlock()
	if target == nil {
		panic("conformance: no target configured (call conformance.Configure before running the suites)")
	}
	return target
}

// HealthURL is the /health URL beside the WebSocket URL (T-2).
func (t *Target) HealthURL() (string, error) {
	return client.HealthURLFor(t.WSURL)
}

// HasDriver reports whether the driver API is configured.
func (t *Target) HasDriver() bool { return t.DriverURL != "" }

// Driver returns a driver API client; callers check HasDriver first (the
// NeedsDriver decorator does).
func (t *Target) Driver() *driver.Client {
	base := strings.TrimSuffix(t.DriverURL, "/")
	base = strings.TrimSuffix(base, driver.Prefix)
	return driver.New(base, t.HTTPClient)
}

// DialOptions returns the client options for a connection to the target.
func (t *Target) DialOptions() *client.Options {
	return &client.Options{HTTPClient: t.HTTPClient}
}

// MintToken returns a fresh pairing token with the given TTL (zero: the
// server's default) and the pairing answer. Through TokenCmd the TTL cannot
// be chosen.
func (t *Target) MintToken(ctx context.Context, ttl time.Duration) (lmp.PairResponse, error) {
	if t.PairURL != "" {
		pr, err := client.Pair(ctx, t.PairURL, ttl, t.HTTPClient)
		RecordSecret(SecretToken, pr.Token) // S-1: the log scan looks for it
		return pr, err
	}
	if ttl != 0 {
		return lmp.PairResponse{}, ErrNoTTL
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", t.TokenCmd)
	out, err := cmd.Output()
	if err != nil {
		// The command's output may hold a token: never echo it (S-1).
		return lmp.PairResponse{}, fmt.Errorf("token command failed: %v", err)
	}
	var pr lmp.PairResponse
	if err := json.Unmarshal(out, &pr); err != nil || pr.Token == "" {
		return lmp.PairResponse{}, fmt.Errorf("token command did not print pairing JSON with a \"token\" field (%d bytes of output)", len(out))
	}
	RecordSecret(SecretToken, pr.Token) // S-1: the log scan looks for it
	return pr, nil
}

// ErrNoTTL is returned by MintToken when a TTL is asked for but tokens come
// from a command.
var ErrNoTTL = errors.New("a pairing TTL can be requested only through --pair-url")
