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
	// Profile is the server's timings and windows; zero fields take the
	// spec's defaults.
	Profile lmp.Profile
	// ProfileSource says where Profile came from: ProfileFromSpec,
	// ProfileFromDriver or ProfileFromFlags.
	ProfileSource string
	// ServerLog is the path of the server's log file, read (never
	// written) by the S-1 spec to look for the secrets the run has seen.
	// Empty skips that spec.
	ServerLog string
	// Strict turns deviations from the spec's default timings into
	// failures (see the INFO spec in timing.go).
	Strict bool

	// cutAt and cutWhy cut the run (CutAt).
	cutAt  time.Time
	cutWhy string
}

// Profile source names: where a target's Profile came from.
const (
	ProfileFromSpec   = "spec defaults"
	ProfileFromDriver = "driver"
	ProfileFromFlags  = "flags"
)

// DescribeProfile is one line naming the target's timings and where they
// came from.
func (t *Target) DescribeProfile() string {
	return fmt.Sprintf("%s (%s)", t.Profile, t.ProfileSource)
}

// ready checks that t names a server to reach, and fills its defaults: the
// spec's timings where its Profile leaves them, http.DefaultClient.
func (t *Target) ready() error {
	if t.WSURL == "" {
		return errors.New("conformance: target has no WebSocket URL")
	}
	if t.PairURL == "" && t.TokenCmd == "" {
		return errors.New("conformance: target has neither a pairing URL nor a token command")
	}
	if t.Profile.IsZero() && t.ProfileSource == "" {
		t.ProfileSource = ProfileFromSpec
	}
	t.Profile = t.Profile.WithDefaults()
	if t.HTTPClient == nil {
		t.HTTPClient = http.DefaultClient
	}
	return nil
}

type targetKey struct{}

// WithTarget returns ctx carrying t: how a spec's body, and everything it
// calls with its context, reaches the target the tree was declared for.
func WithTarget(ctx context.Context, t *Target) context.Context {
	return context.WithValue(ctx, targetKey{}, t)
}

// TargetOf returns the target ctx carries (a spec's context, or one
// derived from it); it panics without one, which is a wiring bug.
func TargetOf(ctx context.Context) *Target {
	t, _ := ctx.Value(targetKey{}).(*Target)
	if t == nil {
		panic("conformance: this context carries no target (use the spec's context, or one derived from it)")
	}
	return t
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
